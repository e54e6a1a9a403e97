package dev.stoker.loader;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Reads {@link LoaderOptions} from string values, naming the option in every error. */
final class OptionParser {
  private OptionParser() {}

  /**
   * The loader's knobs from {@code values}. Placement names and {@code alsoAccepted} are
   * accepted and left to their readers; any other name is an error.
   */
  static LoaderOptions parse(Map<String, String> values, Collection<String> alsoAccepted) {
    List<String> accepted = new ArrayList<>(OptionNames.PLACEMENT);
    accepted.addAll(alsoAccepted);
    OptionMap map = OptionMap.strict(values, OptionNames.LOADER, accepted);
    LoaderOptions.Builder b = LoaderOptions.builder();
    for (String name : OptionNames.LOADER) {
      String value = map.get(name);
      if (value != null) {
        apply(b, name, value);
      }
    }
    return b.build();
  }

  private static void apply(LoaderOptions.Builder b, String name, String value) {
    switch (name) {
      case OptionNames.BATCH_SIZE -> b.batchSize(OptionValues.intValue(name, value));
      case OptionNames.SHUFFLE -> b.shuffle(OptionValues.booleanValue(name, value));
      case OptionNames.SEED -> b.seed(OptionValues.longValue(name, value));
      case OptionNames.NUM_WORKERS -> b.numWorkers(OptionValues.intValue(name, value));
      case OptionNames.PIN_MEMORY -> b.pinMemory(OptionValues.booleanValue(name, value));
      case OptionNames.PREFETCH_FACTOR -> b.prefetchFactor(OptionValues.intValue(name, value));
      case OptionNames.PERSISTENT_WORKERS ->
          b.persistentWorkers(OptionValues.booleanValue(name, value));
      case OptionNames.DROP_LAST -> b.dropLast(OptionValues.booleanValue(name, value));
      case OptionNames.TIMEOUT -> b.timeout(OptionValues.duration(name, value));
      case OptionNames.ON_BAD_SAMPLE -> b.onBadSample(OnBadSample.parse(value));
      case OptionNames.MAX_HOST_BYTES -> b.maxHostBytes(OptionValues.bytes(name, value));
      case OptionNames.TRANSFER_DEPTH -> b.transferDepth(OptionValues.intValue(name, value));
      case OptionNames.NAME -> b.name(value);
      default -> throw new IllegalStateException("option without a parser: " + name);
    }
  }
}
