package dev.stoker.examples.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code stoker} command; without a subcommand it shows the usage. */
@Command(
    name = "stoker",
    subcommands = {BenchCommand.class, DemoCommand.class},
    description =
        "Stoker: a data loader for deep-learning training with PyTorch DataLoader's "
            + "options, on the JVM.")
public final class StokerCli implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help.")
  boolean help;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(),
        "Missing subcommand (expected one of: "
            + String.join(", ", spec.subcommands().keySet())
            + ")");
  }

  /** The command line, ready to {@link CommandLine#execute}. */
  public static CommandLine commandLine() {
    return new CommandLine(new StokerCli());
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(commandLine().execute(args));
  }
}
