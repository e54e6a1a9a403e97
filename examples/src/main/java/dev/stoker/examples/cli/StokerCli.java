package dev.stoker.examples.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
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
    return new CommandLine(new StokerCli()).setExecutionExceptionHandler(StokerCli::failed);
  }

  /** Environment variable that brings back the stack trace of a failed command. */
  static final String TRACE = "STOKER_TRACE";

  /**
   * A command that failed: its message and those of its causes, one line each (they say what to
   * do); the stack trace too with {@code STOKER_TRACE=1}.
   */
  private static int failed(Exception e, CommandLine command, ParseResult parsed) {
    PrintWriter err = command.getErr();
    err.println(
        "stoker "
            + command.getCommandName()
            + ": "
            + (e.getMessage() != null ? e.getMessage() : e.toString()));
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && depth < 3; depth++, cause = cause.getCause()) {
      err.println("  caused by: " + cause);
    }
    if ("1".equals(System.getenv(TRACE))) {
      e.printStackTrace(err);
    } else {
      err.println("  (" + TRACE + "=1 shows the stack trace)");
    }
    err.flush();
    return command.getCommandSpec().exitCodeOnExecutionException();
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(commandLine().execute(args));
  }
}
