package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs4j run} as its own process: when it is stopped by SIGTERM (what Ctrl-C's shutdown
 * path runs) or killed by SIGKILL (no hook runs), neither its children nor their children survive.
 */
class LauncherProcessTest {
  private static final Pattern READY = Pattern.compile("ready pid=(\\d+) grandchild=(\\d+)");
  private final List<Long> pids = new ArrayList<>();
  private Process launcher;

  private List<String> startLauncher() throws IOException, InterruptedException {
    List<String> cmd = List.of(Launcher.javaExecutable(), "--enable-native-access=ALL-UNNAMED", "-cp",
        System.getProperty("java.class.path"), Launcher.MAIN_CLASS, "run", "-n", "2", "--timeout", "5m", "probe",
        "--hang-rank", "0", "--delay", "5m", "--grandchild");
    launcher = new ProcessBuilder(cmd).directory(Path.of("target").toFile()).redirectErrorStream(true).start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(launcher.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        lines.add("reader: " + e);
      }
    });
    reader.setDaemon(true);
    reader.start();
    List<String> seen = new ArrayList<>();
    int ready = 0;
    while (ready < 2) {
      String line = lines.poll(60, TimeUnit.SECONDS);
      assertTrue(line != null, "the ranks did not report ready; saw " + seen);
      seen.add(line);
      Matcher m = READY.matcher(line);
      if (m.find()) {
        pids.add(Long.parseLong(m.group(1)));
        pids.add(Long.parseLong(m.group(2)));
        ready++;
      }
    }
    return seen;
  }

  private void assertAllGone(String how) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (long pid : pids) {
      while (alive(pid) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertFalse(alive(pid), "process " + pid + " outlived the launcher (" + how + ")");
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @AfterEach
  void cleanUp() {
    if (launcher != null) {
      launcher.destroyForcibly();
    }
    for (long pid : pids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void sigtermStopsEveryChildAndGrandchild() throws Exception {
    startLauncher();
    assertEquals(4, pids.size());
    launcher.destroy();
    assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), "the launcher did not exit after SIGTERM");
    assertAllGone("SIGTERM");
  }

  @Test
  void sigkillOfTheLauncherStillTakesTheChildrenDown() throws Exception {
    startLauncher();
    launcher.destroyForcibly();
    assertTrue(launcher.waitFor(60, TimeUnit.SECONDS));
    assertAllGone("SIGKILL: the children watch the launcher's pid");
  }
}
