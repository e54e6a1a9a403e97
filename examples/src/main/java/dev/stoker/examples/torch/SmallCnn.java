package dev.stoker.examples.torch;

import java.util.List;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.global.torch;

/**
 * The demo's network in PyTorch: two 3x3 convolutions (16 and 32 channels, ReLU, 2x2 max pooling
 * each) and a linear head, 28x28x1 in, 10 classes out; cross-entropy loss; SGD with momentum. Every
 * parameter is a view of one flat tensor, so backward leaves all gradients in one flat buffer:
 * data-parallel ranks read it in one bulk copy, average it as one message and write it back in one,
 * and the step updates the flat weights in place.
 *
 * <p>Each step's tensors live in a {@link PointerScope} and are freed when the step ends; the
 * weights, the momentum and the gradient buffer live until {@link #close()}. One thread at a time.
 */
public final class SmallCnn implements AutoCloseable {
  /** The flat layout: offsets, shapes and fan-ins of the parameters. */
  public static final class Layout {
    /** One parameter in the flat tensor. */
    record Part(String name, int offset, long[] shape, int fanIn) {
      int size() {
        long n = 1;
        for (long s : shape) {
          n *= s;
        }
        return (int) n;
      }
    }

    static final int C1 = 16;
    static final int C2 = 32;
    static final int HIDDEN = C2 * 7 * 7;
    static final int CLASSES = 10;
    static final List<Part> PARTS;

    /** Parameter count. */
    public static final int SIZE;

    static {
      long[][] shapes = {{C1, 1, 3, 3}, {C1}, {C2, C1, 3, 3}, {C2}, {CLASSES, HIDDEN}, {CLASSES}};
      String[] names = {
        "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "head.weight", "head.bias"
      };
      int[] fanIns = {9, 9, C1 * 9, C1 * 9, HIDDEN, HIDDEN};
      Part[] parts = new Part[shapes.length];
      int offset = 0;
      for (int i = 0; i < shapes.length; i++) {
        parts[i] = new Part(names[i], offset, shapes[i], fanIns[i]);
        offset += parts[i].size();
      }
      PARTS = List.of(parts);
      SIZE = offset;
    }

    private Layout() {}
  }

  private static final long[] ONE = {1};
  private static final long[] SAME = {1};
  private static final long[] POOL = {2, 2};

  private final Tensor params;
  private final Tensor velocity;
  private final float learningRate;
  private final float momentum;
  private boolean closed;

  /**
   * @param state the weights and momentum to start from (copied into native memory)
   */
  public SmallCnn(CnnState state, float learningRate, float momentum) {
    TorchNatives.load().require();
    this.learningRate = learningRate;
    this.momentum = momentum;
    this.params = torch.empty(Layout.SIZE);
    this.velocity = torch.empty(Layout.SIZE);
    floats(params).put(state.params());
    floats(velocity).put(state.velocity());
    params.set_requires_grad(true);
  }

  /** The weights and momentum, copied out. */
  public CnnState state() {
    checkOpen();
    float[] p = new float[Layout.SIZE];
    float[] v = new float[Layout.SIZE];
    floats(params).get(p);
    floats(velocity).get(v);
    return new CnnState(p, v);
  }

  /** CRC-32 of the weights' bits (as {@link CnnState#checksum()}). */
  public long checksum() {
    checkOpen();
    float[] p = new float[Layout.SIZE];
    floats(params).get(p);
    return CnnState.checksum(p);
  }

  /** The logits [n, 10] of images {@code x} ([n, 1, 28, 28] or [n, 784], float32). */
  public Tensor forward(Tensor x) {
    Tensor images = x.view(-1, 1, 28, 28);
    Tensor h = torch.max_pool2d(torch.relu(conv(images, 0)), POOL);
    h = torch.max_pool2d(torch.relu(conv(h, 2)), POOL);
    return torch.linear(h.view(-1, Layout.HIDDEN), part(4), part(5));
  }

  private Tensor conv(Tensor x, int weight) {
    return torch.conv2d(x, part(weight), new TensorOptional(part(weight + 1)), ONE, SAME, ONE, 1);
  }

  private Tensor part(int index) {
    Layout.Part part = Layout.PARTS.get(index);
    return params.narrow(0, part.offset(), part.size()).view(part.shape());
  }

  /**
   * Forward and backward on one batch: leaves the batch's mean gradient in {@link #gradients()}
   * (replacing the last) and returns the mean loss. Every tensor made here is freed on return.
   *
   * @param labels int64 class indices [n]
   */
  public float backward(Tensor x, Tensor labels) {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      Tensor grad = params.grad();
      if (grad.defined()) {
        grad.zero_();
      }
      Tensor loss = torch.cross_entropy(forward(x), labels);
      loss.backward();
      return loss.item_float();
    }
  }

  /**
   * The flat gradient buffer of the last {@link #backward}, in native memory: read it, average it
   * across ranks and write it back in place before {@link #step()}.
   */
  public FloatPointer gradients() {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      Tensor grad = params.grad();
      if (!grad.defined()) {
        throw new IllegalStateException("no gradients yet: call backward first");
      }
      return new FloatPointer(grad.data_ptr_float()).capacity(Layout.SIZE).limit(Layout.SIZE);
    }
  }

  /** Reads the gradients into {@code into} (one bulk copy) and returns it. */
  public float[] readGradients(float[] into) {
    gradients().get(into, 0, Layout.SIZE);
    return into;
  }

  /** Writes {@code values} (e.g. the ranks' mean) over the gradients (one bulk copy). */
  public void writeGradients(float[] values) {
    gradients().put(values, 0, Layout.SIZE);
  }

  /** One SGD step with momentum along the gradients: v = m v + g; w -= lr v. */
  public void step() {
    checkOpen();
    try (PointerScope scope = new PointerScope();
        NoGradGuard noGrad = new NoGradGuard()) {
      Tensor grad = params.grad();
      if (!grad.defined()) {
        throw new IllegalStateException("no gradients yet: call backward first");
      }
      velocity.mul_(new Scalar(momentum)).add_(grad);
      params.add_(velocity, new Scalar(-learningRate));
    }
  }

  /** The predicted class of each image of {@code x}, without gradients. */
  public long[] predict(Tensor x) {
    checkOpen();
    try (PointerScope scope = new PointerScope();
        NoGradGuard noGrad = new NoGradGuard()) {
      Tensor classes =
          forward(x).argmax(new org.bytedeco.pytorch.LongOptional(1), false).contiguous();
      long[] out = new long[(int) classes.numel()];
      classes.data_ptr_long().get(out);
      return out;
    }
  }

  private static FloatPointer floats(Tensor tensor) {
    return tensor.data_ptr_float().capacity(tensor.numel()).limit(tensor.numel());
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this SmallCnn is closed");
    }
  }

  /** Frees the weights, the momentum and the gradients; a second call does nothing. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      params.close();
      velocity.close();
    }
  }
}
