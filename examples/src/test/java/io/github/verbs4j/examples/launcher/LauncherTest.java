package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The launcher with the built-in {@code probe} program, which needs no provider. */
class LauncherTest {
  private static final Pattern GRANDCHILD = Pattern.compile("grandchild=(\\d+)");
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final List<Long> started = new ArrayList<>();

  private Launcher launcher(Duration timeout, String... program) {
    Launcher.Job job = new Launcher.Job(program.length == 0 ? 0 : ranksFor(program), List.of(program).subList(1,
        program.length), Map.of(), List.of(), timeout, System.getProperty("java.class.path"), Path.of("target"));
    return new Launcher(job, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** The first element of {@code program} is the rank count, the rest the command. */
  private static int ranksFor(String[] program) {
    return Integer.parseInt(program[0]);
  }

  private int run(Launcher l) {
    try {
      return l.run();
    } finally {
      started.addAll(l.childPids());
      started.addAll(grandchildren());
    }
  }

  private List<Long> grandchildren() {
    List<Long> pids = new ArrayList<>();
    Matcher m = GRANDCHILD.matcher(out.toString(StandardCharsets.UTF_8));
    while (m.find()) {
      pids.add(Long.parseLong(m.group(1)));
    }
    return pids;
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @AfterEach
  void noChildSurvives() {
    for (long pid : started) {
      boolean wasAlive = alive(pid);
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      assertFalse(wasAlive, "process " + pid + " outlived the launcher");
    }
  }

  @Test
  void everyRanksOutputIsPrefixedAndSuccessExitsZero() {
    Launcher l = launcher(Duration.ofSeconds(60), "3", "probe");
    assertEquals(0, run(l));
    String o = out.toString(StandardCharsets.UTF_8);
    for (int r = 0; r < 3; r++) {
      assertTrue(o.contains("[" + r + "] probe: rank " + r + " of 3 ready pid="), o);
      assertTrue(o.contains("[" + r + "] probe: rank " + r + " done"), o);
    }
    assertEquals(3, l.childPids().size());
  }

  @Test
  void aFailingRankFailsTheRunWithItsExitCodeAndTheOthersAreStopped() {
    Launcher l = launcher(Duration.ofSeconds(120), "3", "probe", "--hang-rank", "0", "--fail-rank", "1",
        "--exit-code", "7", "--grandchild");
    assertEquals(7, run(l));
    String e = err.toString(StandardCharsets.UTF_8);
    assertTrue(e.contains("verbs4j run: rank 1 exited with code 7"), e);
    assertTrue(e.contains("[1] probe: rank 1 fails with exit code 7"), e);
    // rank 1 always started its grandchild before failing; @AfterEach checks every reported one is gone
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("[1] probe: rank 1 of 3 ready pid="));
    assertTrue(!grandchildren().isEmpty());
  }

  @Test
  void aHangingRankIsKilledAtTheTimeout() {
    Launcher l = launcher(Duration.ofSeconds(8), "2", "probe", "--hang-rank", "1", "--grandchild");
    assertEquals(Launcher.TIMEOUT_EXIT, run(l));
    String e = err.toString(StandardCharsets.UTF_8);
    // on a loaded machine rank 0's JVM may not have finished either: the hanging rank must be named
    assertTrue(e.contains("verbs4j run: timeout of 8 s reached with ranks [1] still running")
        || e.contains("verbs4j run: timeout of 8 s reached with ranks [0, 1] still running"), e);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("[1] probe: rank 1 hangs"));
  }

  @Test
  void aRankThatRejectsItsArgumentsFailsTheRun() {
    Launcher l = launcher(Duration.ofSeconds(120), "2", "probe", "--no-such-option");
    assertEquals(2, run(l), "picocli's usage-error exit code");
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("Unknown option: '--no-such-option'"));
  }

  @Test
  void stopFromAnotherThreadEndsTheRunAsInterrupted() throws Exception {
    Launcher hang = launcher(Duration.ofSeconds(120), "2", "probe", "--hang-rank", "0", "--delay", "120s");
    Thread stopper = new Thread(() -> {
      awaitReady(2);
      hang.stop("interrupted");
    });
    stopper.start();
    assertEquals(Launcher.INTERRUPTED_EXIT, run(hang));
    stopper.join(10_000);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("verbs4j run: interrupted; stopping ranks"));
  }

  private void awaitReady(int ranks) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      String o = out.toString(StandardCharsets.UTF_8);
      int ready = o.split(" ready pid=", -1).length - 1;
      if (ready >= ranks) {
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Test
  void childCommandLinesCarryRankSizeAndTheLaunchersPid() {
    Launcher.Job job = new Launcher.Job(4, List.of("send_lat", "-a"), Map.of("verbs.provider", "tca"),
        List.of("-Xmx256m"), Duration.ofSeconds(5), "cp", Path.of("."));
    List<String> cmd = new Launcher(job, System.out, System.err).command(2);
    assertTrue(cmd.contains("-Dverbs.rank=2"), cmd.toString());
    assertTrue(cmd.contains("-Dverbs.size=4"), cmd.toString());
    assertTrue(cmd.contains("-Dverbs.provider=tca"), cmd.toString());
    assertTrue(cmd.contains("-Xmx256m"), cmd.toString());
    assertTrue(cmd.contains("--enable-native-access=ALL-UNNAMED"), cmd.toString());
    assertTrue(cmd.contains("-D" + ParentWatch.PROPERTY + "=" + ProcessHandle.current().pid()), cmd.toString());
    assertEquals(List.of(Launcher.MAIN_CLASS, "send_lat", "-a"), cmd.subList(cmd.size() - 3, cmd.size()));
  }
}
