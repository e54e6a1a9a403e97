package dev.stoker.examples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Fashion-MNIST (70,000 28x28 grey images of clothes in 10 classes), found or fetched the way
 * torchvision's {@code download=True} does: files already in a given folder; else Debian's {@code
 * dataset-fashion-mnist} package when it is installed; else the files already downloaded into a
 * cache folder; else, only when asked ({@code --install-dataset}), that package installed with
 * apt-get, its output shown and its time limited; else the published files, downloaded into the
 * cache, after saying how to install the package instead. Nothing is installed unless asked. Every
 * file is checked against its published checksum (the gzip file's MD5 for a download, the content's
 * SHA-256 for any copy).
 */
public final class FashionMnist {
  /** Where Debian's package puts the files. */
  public static final Path DEBIAN_FOLDER = Path.of("/usr/share/datasets/fashion-mnist");

  /** The dataset's published location. */
  public static final String PUBLISHED_URL =
      "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/";

  public static final List<String> CLASSES =
      List.of(
          "T-shirt/top",
          "Trouser",
          "Pullover",
          "Dress",
          "Coat",
          "Sandal",
          "Shirt",
          "Sneaker",
          "Bag",
          "Ankle boot");

  /** One file of the dataset with its published checksums. */
  enum Part {
    TRAIN_IMAGES(
        "train-images-idx3-ubyte",
        "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
        "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
    TRAIN_LABELS(
        "train-labels-idx1-ubyte",
        "25c81989df183df01b3e8a0aad5dffbe",
        "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
    TEST_IMAGES(
        "t10k-images-idx3-ubyte",
        "bef4ecab320f06d8554ea6380940ec79",
        "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
    TEST_LABELS(
        "t10k-labels-idx1-ubyte",
        "bb300cfdad3c16e7a12a480ee83cd310",
        "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34");

    final String name;
    final String gzipMd5;
    final String contentSha256;

    Part(String name, String gzipMd5, String contentSha256) {
      this.name = name;
      this.gzipMd5 = gzipMd5;
      this.contentSha256 = contentSha256;
    }

    String gzipName() {
      return name + ".gz";
    }
  }

  /** The four files, checked. */
  public record Files4(Path trainImages, Path trainLabels, Path testImages, Path testLabels) {}

  /**
   * Where the files can come from besides a given folder and the cache.
   *
   * @param debian where the installed package keeps them
   * @param install the command that installs the package, run only when asked
   * @param installLimit how long it may run before it is stopped
   * @param url the published files' location, ending in '/'
   */
  record Sources(Path debian, List<String> install, Duration installLimit, String url) {
    static final Sources DEFAULT =
        new Sources(DEBIAN_FOLDER, DatasetInstall.COMMAND, DatasetInstall.LIMIT, PUBLISHED_URL);
  }

  private FashionMnist() {}

  /**
   * The dataset's files: from {@code folder} when given (it must hold them), else found or fetched
   * as described above, saying on {@code log} what it does.
   *
   * @param cache where downloaded files go
   * @param install whether Debian's package may be installed (with apt-get, as root) when the files
   *     are neither installed nor in the cache
   * @throws IOException naming the file and the remedy when a file is missing, corrupt, or cannot
   *     be had
   */
  public static Files4 locate(Path folder, Path cache, boolean install, PrintStream log)
      throws IOException, InterruptedException {
    return locate(folder, cache, install, log, Sources.DEFAULT);
  }

  static Files4 locate(Path folder, Path cache, boolean install, PrintStream log, Sources sources)
      throws IOException, InterruptedException {
    if (folder != null) {
      return checked(folder, log, "--data");
    }
    String debian = "Debian's dataset-fashion-mnist";
    if (hasAll(sources.debian())) {
      return checked(sources.debian(), log, debian);
    }
    if (hasAll(cache)) {
      return checked(cache, log, "the download cache");
    }
    if (install) {
      DatasetInstall.run(sources.install(), sources.installLimit(), log);
      if (!hasAll(sources.debian())) {
        throw new IOException(
            String.format(
                "--install-dataset: '%s' succeeded but left no "
                    + "Fashion-MNIST files in %s (expected: the four IDX files there; give them with "
                    + "--data DIR instead)",
                String.join(" ", sources.install()), sources.debian()));
      }
      return checked(sources.debian(), log, debian);
    }
    log.println(
        "stoker: Fashion-MNIST is neither in "
            + sources.debian()
            + " nor in "
            + cache
            + "; downloading the published files (to use "
            + debian
            + " instead: '"
            + String.join(" ", DatasetInstall.COMMAND)
            + "' as root, or run the demo with "
            + "--install-dataset)");
    download(cache, sources.url(), log);
    return checked(cache, log, "the download cache");
  }

  /**
   * The name of the first of the four files that {@code folder} lacks, or null when it holds them
   * all (their content not checked yet).
   */
  static String firstMissing(Path folder) {
    for (Part part : Part.values()) {
      if (find(folder, part) == null) {
        return part.name;
      }
    }
    return null;
  }

  /** The published SHA-256 of each file's content: train images, labels, test images, labels. */
  public static List<String> contentChecksums() {
    return java.util.Arrays.stream(Part.values()).map(p -> p.contentSha256).toList();
  }

  private static Files4 checked(Path folder, PrintStream log, String from) throws IOException {
    Path[] paths = new Path[Part.values().length];
    for (Part part : Part.values()) {
      Path file = find(folder, part);
      if (file == null) {
        throw new IOException(
            String.format(
                "%s: no %s(.gz) in %s (expected: the four "
                    + "Fashion-MNIST IDX files; leave out --data to fetch them)",
                from, part.name, folder));
      }
      String sha = sha256OfContent(file);
      if (!sha.equals(part.contentSha256)) {
        throw new IOException(
            String.format(
                "%s: the content of %s has SHA-256 %s (expected: %s, "
                    + "the published file; delete it to fetch it again)",
                from, file, sha, part.contentSha256));
      }
      paths[part.ordinal()] = file;
    }
    log.println("stoker: Fashion-MNIST from " + from + " (" + folder + "), checksums verified");
    return new Files4(paths[0], paths[1], paths[2], paths[3]);
  }

  private static Path find(Path folder, Part part) {
    Path gz = folder.resolve(part.gzipName());
    if (Files.isRegularFile(gz)) {
      return gz;
    }
    Path plain = folder.resolve(part.name);
    return Files.isRegularFile(plain) ? plain : null;
  }

  private static boolean hasAll(Path folder) {
    return firstMissing(folder) == null;
  }

  private static void download(Path cache, String url, PrintStream log)
      throws IOException, InterruptedException {
    Files.createDirectories(cache);
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(20))
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
    for (Part part : Part.values()) {
      Path target = cache.resolve(part.gzipName());
      if (Files.isRegularFile(target)) {
        continue;
      }
      URI uri = URI.create(url + part.gzipName());
      log.println("stoker: downloading " + uri + " into " + cache + "...");
      Path partial = cache.resolve(part.gzipName() + ".part");
      HttpResponse<Path> response;
      try {
        response =
            client.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(5)).build(),
                HttpResponse.BodyHandlers.ofFile(partial));
      } catch (IOException e) {
        throw new IOException(
            "downloading "
                + uri
                + " failed: "
                + e
                + " (no network? install "
                + "Debian's dataset-fashion-mnist ('"
                + String.join(" ", DatasetInstall.COMMAND)
                + "' as root, or --install-dataset), or give the files with --data DIR)",
            e);
      }
      if (response.statusCode() != 200) {
        Files.deleteIfExists(partial);
        throw new IOException(
            "downloading "
                + uri
                + ": HTTP "
                + response.statusCode()
                + " (give the files with --data DIR instead)");
      }
      String md5 = digest("MD5", Files.newInputStream(partial));
      if (!md5.equals(part.gzipMd5)) {
        Files.deleteIfExists(partial);
        throw new IOException(
            "downloaded "
                + uri
                + " has MD5 "
                + md5
                + " (expected: "
                + part.gzipMd5
                + ", the published checksum; try again)");
      }
      Files.move(
          partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /** The SHA-256 of a file's content, gunzipped when its name ends in {@code .gz}. */
  static String sha256OfContent(Path file) throws IOException {
    InputStream raw = Files.newInputStream(file);
    InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
    return digest("SHA-256", in);
  }

  private static String digest(String algorithm, InputStream in) throws IOException {
    try (in) {
      MessageDigest digest = MessageDigest.getInstance(algorithm);
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this JVM", e);
    }
  }
}
