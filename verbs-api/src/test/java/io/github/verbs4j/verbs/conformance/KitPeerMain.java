package io.github.verbs4j.verbs.conformance;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * A child JVM of the kit: runs ranks of two-sided scenarios (environments with {@link
 * KitEnvironment#peersInProcesses()}), one after the other, as the parent asks.
 *
 * <pre>
 * java -cp &lt;test class path&gt; io.github.verbs4j.verbs.conformance.KitPeerMain
 * </pre>
 *
 * <p>Starting a JVM and loading the fabric costs more than most scenarios, so a child serves many:
 * each line on its stdin is one request (tab-separated, see {@link #request}); it creates the
 * concrete test class with its no-arg constructor, sets the request's system properties, opens the
 * context with {@code environment().config(rank, size, jobId)} and the request's settings, runs the
 * body with its output going to the request's log file, and answers one line {@value #RESULT}
 * followed by the code: 0 passed, 1 failed (the stack trace is in the log), 5 skipped by an
 * assumption. The parent reuses a child only after it passed or skipped; otherwise it kills it.
 * The process exits with 3 when a scenario outlasts its timeout + 30 s (threads dumped to the
 * log), and with 4 when its stdin closes (the parent went away).
 */
public final class KitPeerMain {
  /** Prefix of the answer line. */
  static final String RESULT = "kit-peer-result ";

  private static final PrintStream PROTOCOL = System.out;
  private static volatile long deadlineNanos = Long.MAX_VALUE;

  private KitPeerMain() {}

  /**
   * Encodes one request.
   *
   * @param log the file the rank's output goes to
   * @param testClass the concrete test class
   * @param body the body method
   * @param rank the rank
   * @param size the number of ranks
   * @param jobId the job
   * @param properties system properties to set for this scenario
   * @param settings the scenario's settings
   * @return the request line, without the line break
   */
  static String request(String log, String testClass, String body, int rank, int size, String jobId,
      Map<String, String> properties, Map<String, String> settings) {
    List<String> f = new ArrayList<>(List.of(log, testClass, body, Integer.toString(rank), Integer.toString(size),
        jobId));
    for (Map<String, String> m : List.of(properties, settings)) {
      f.add(Integer.toString(m.size()));
      m.forEach((k, v) -> {
        f.add(k);
        f.add(v);
      });
    }
    for (String s : f) {
      if (s.indexOf('\t') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
        throw new IllegalArgumentException("a kit request field holds a tab or line break: " + s);
      }
    }
    return String.join("\t", f);
  }

  /** Serves requests until stdin closes. */
  public static void main(String[] args) throws IOException {
    startWatchdog();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split("\t", -1);
      int at = 6;
      Map<String, String> properties = new LinkedHashMap<>();
      Map<String, String> settings = new LinkedHashMap<>();
      for (Map<String, String> m : List.of(properties, settings)) {
        int n = Integer.parseInt(f[at++]);
        for (int i = 0; i < n; i++, at += 2) {
          m.put(f[at], f[at + 1]);
        }
      }
      int code;
      try (PrintStream log = new PrintStream(new FileOutputStream(f[0]), true, StandardCharsets.UTF_8)) {
        System.setOut(log);
        System.setErr(log);
        properties.forEach(System::setProperty);
        code = runOne(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]), f[5], settings);
      } finally {
        deadlineNanos = Long.MAX_VALUE;
        System.setOut(PROTOCOL);
        System.setErr(PROTOCOL);
        properties.keySet().forEach(System::clearProperty);
      }
      PROTOCOL.println(RESULT + code);
      PROTOCOL.flush();
    }
    Runtime.getRuntime().halt(KitRunner.EXIT_PARENT_GONE);
  }

  private static int runOne(String testClass, String body, int rank, int size, String jobId,
      Map<String, String> settings) {
    try {
      java.lang.reflect.Constructor<?> ctor = Class.forName(testClass).getDeclaredConstructor();
      ctor.setAccessible(true); // JUnit test classes are often package-private
      AbstractConformance test = (AbstractConformance) ctor.newInstance();
      KitEnvironment env = test.environment();
      deadlineNanos = System.nanoTime() + env.timeout().toNanos() + 30_000_000_000L;
      System.out.println("kit peer: " + testClass + "." + body + " rank " + rank + "/" + size + " job " + jobId
          + " on " + env.name() + " (process " + ProcessHandle.current().pid() + ")");
      KitRunner.runRank(env, jobId, rank, size, settings, KitRunner.method(test, body), new AbortSignal());
      System.out.println("kit peer: rank " + rank + " passed");
      return KitRunner.EXIT_OK;
    } catch (TestAbortedException e) {
      System.out.println("kit peer: skipped: " + e.getMessage());
      return KitRunner.EXIT_SKIPPED;
    } catch (Throwable t) {
      System.out.println("kit peer: FAILED");
      t.printStackTrace(System.out);
      return KitRunner.EXIT_FAILED;
    }
  }

  /** Ends the process when a scenario outlasts its timeout + 30 s, after dumping the threads. */
  private static void startWatchdog() {
    Thread t = new Thread(() -> {
      while (true) {
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        }
        if (System.nanoTime() - deadlineNanos > 0) {
          System.out.println("kit peer: watchdog fired; threads:");
          for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            System.out.print(info);
          }
          System.out.flush();
          Runtime.getRuntime().halt(KitRunner.EXIT_WATCHDOG);
        }
      }
    }, "kit-peer-watchdog");
    t.setDaemon(true);
    t.start();
  }
}
