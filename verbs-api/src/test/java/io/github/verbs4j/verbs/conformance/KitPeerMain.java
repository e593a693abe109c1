package io.github.verbs4j.verbs.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * The child JVM of a two-sided scenario whose environment has {@link
 * KitEnvironment#peersInProcesses()}: runs one rank of one body method and exits.
 *
 * <pre>
 * java -cp &lt;test class path&gt; io.github.verbs4j.verbs.conformance.KitPeerMain \
 *     &lt;concrete test class&gt; &lt;body method&gt; &lt;rank&gt; &lt;size&gt; &lt;jobId&gt;
 * </pre>
 *
 * <p>It creates the concrete test class with its no-arg constructor, asks it for {@code
 * environment().config(rank, size, jobId)}, opens the context and runs the body. Exit codes: 0
 * passed, 1 failed (the stack trace is printed), 2 bad arguments, 3 the watchdog fired (timeout +
 * 30 s), 4 the parent went away (stdin closed), 5 skipped by an assumption.
 */
public final class KitPeerMain {
  /** System properties of the child carrying the scenario's settings: this prefix, then the key. */
  static final String SETTING_PREFIX = "verbs4j.kit.setting.";

  private KitPeerMain() {}

  /** @return the scenario's settings the parent passed as {@link #SETTING_PREFIX} properties */
  private static Map<String, String> settings() {
    Map<String, String> m = new HashMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(SETTING_PREFIX)) {
        m.put(name.substring(SETTING_PREFIX.length()), System.getProperty(name));
      }
    }
    return m;
  }

  /**
   * Runs one rank.
   *
   * @param args test class, body method, rank, size, job id
   */
  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: KitPeerMain <test class> <body method> <rank> <size> <jobId>");
      System.exit(KitRunner.EXIT_USAGE);
    }
    watchParent();
    int code;
    try {
      java.lang.reflect.Constructor<?> ctor = Class.forName(args[0]).getDeclaredConstructor();
      ctor.setAccessible(true); // JUnit test classes are often package-private
      AbstractConformance test = (AbstractConformance) ctor.newInstance();
      KitEnvironment env = test.environment();
      int rank = Integer.parseInt(args[2]);
      int size = Integer.parseInt(args[3]);
      watchdog(env.timeout().toMillis() + 30_000);
      System.out.println("kit peer: " + args[0] + "." + args[1] + " rank " + rank + "/" + size + " job " + args[4]
          + " on " + env.name());
      KitRunner.runRank(env, args[4], rank, size, settings(), KitRunner.method(test, args[1]), new AbortSignal());
      System.out.println("kit peer: rank " + rank + " passed");
      code = KitRunner.EXIT_OK;
    } catch (TestAbortedException e) {
      System.out.println("kit peer: skipped: " + e.getMessage());
      code = KitRunner.EXIT_SKIPPED;
    } catch (Throwable t) {
      System.out.println("kit peer: FAILED");
      t.printStackTrace(System.out);
      code = KitRunner.EXIT_FAILED;
    }
    System.out.flush();
    System.exit(code);
  }

  /** The parent holds our stdin open; end of stream means it died, so we go too. */
  private static void watchParent() {
    Thread t = new Thread(() -> {
      InputStream in = System.in;
      try {
        while (in.read() >= 0) {
          // the parent never writes; keep reading until it goes away
        }
      } catch (IOException ignored) {
        // treated as the parent going away
      }
      System.out.println("kit peer: parent went away, exiting");
      System.out.flush();
      Runtime.getRuntime().halt(KitRunner.EXIT_PARENT_GONE);
    }, "kit-peer-parent-watch");
    t.setDaemon(true);
    t.start();
  }

  private static void watchdog(long millis) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        return;
      }
      System.out.println("kit peer: watchdog fired after " + millis + " ms; threads:");
      for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
        System.out.print(info);
      }
      System.out.flush();
      Runtime.getRuntime().halt(KitRunner.EXIT_WATCHDOG);
    }, "kit-peer-watchdog");
    t.setDaemon(true);
    t.start();
  }
}
