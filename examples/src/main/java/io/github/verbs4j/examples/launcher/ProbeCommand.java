package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.examples.common.DurationConverter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code verbs4j probe}: a program that needs no device, for checking the launcher. Each rank
 * prints a ready line with its pid, then succeeds, fails with an exit code, or hangs (bounded by
 * {@code --hang-for}), as told. With {@code --grandchild} it first starts a {@code sleep} process of
 * its own, so tests can check that the launcher's clean-up reaches descendants too.
 */
@Command(name = "probe", hidden = true, mixinStandardHelpOptions = true, sortOptions = false,
    description = "Launcher check: print a line per rank, then exit 0, fail, or hang, as told. Needs no device.")
public final class ProbeCommand implements Callable<Integer> {
  @Option(names = "--fail-rank", paramLabel = "RANK", defaultValue = "-1",
      description = "This rank exits with --exit-code (default: none).")
  int failRank;

  @Option(names = "--exit-code", paramLabel = "CODE", defaultValue = "3",
      description = "Exit code of the failing rank, 1..255 (default: ${DEFAULT-VALUE}).")
  int exitCode;

  @Option(names = "--hang-rank", paramLabel = "RANK", defaultValue = "-1",
      description = "This rank hangs (default: none).")
  int hangRank;

  @Option(names = "--hang-for", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
      description = "How long a hanging rank sleeps before giving up (default: ${DEFAULT-VALUE}).")
  Duration hangFor;

  @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "Wait this long before failing or exiting.")
  Duration delay;

  @Option(names = "--grandchild", description = "Start a 'sleep' child process first.")
  boolean grandchild;

  @Override
  public Integer call() throws InterruptedException {
    if (exitCode < 1 || exitCode > 255) {
      throw new IllegalArgumentException("--exit-code=" + exitCode + " must be between 1 and 255");
    }
    RankEnvironment re = RankEnvironment.current();
    Process sleeper = null;
    if (grandchild) {
      try {
        sleeper = new ProcessBuilder("sleep", "600").start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the grandchild 'sleep 600'", e);
      }
    }
    try {
      return behave(re, sleeper);
    } finally {
      if (sleeper != null && !(re.rank() == hangRank)) {
        sleeper.destroyForcibly(); // a hanging rank leaves it for the launcher to find
      }
    }
  }

  private int behave(RankEnvironment re, Process sleeper) throws InterruptedException {
    long grandchildPid = sleeper != null ? sleeper.pid() : -1;
    System.out.println("probe: rank " + re.rank() + " of " + re.size() + " ready pid=" + ProcessHandle.current().pid()
        + (grandchildPid > 0 ? " grandchild=" + grandchildPid : ""));
    System.out.flush();
    if (delay != null) {
      Thread.sleep(delay.toMillis());
    }
    if (re.rank() == hangRank) {
      System.out.println("probe: rank " + re.rank() + " hangs");
      System.out.flush();
      Thread.sleep(hangFor.toMillis());
      System.err.println("probe: rank " + re.rank() + " was not stopped within " + hangFor);
      return 1;
    }
    if (re.rank() == failRank) {
      System.err.println("probe: rank " + re.rank() + " fails with exit code " + exitCode);
      return exitCode;
    }
    System.out.println("probe: rank " + re.rank() + " done");
    return 0;
  }
}
