package io.github.verbs4j.fabric.coord;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a standalone coordinator until the process is stopped:
 *
 * <pre>
 * java -cp sim-fabric.jar:... io.github.verbs4j.fabric.coord.CoordinatorMain --port 7000 [--host 0.0.0.0] [--peer-timeout-ms 3000]
 * </pre>
 *
 * Processes then use {@code verbs.coordinator=<host>:7000}. The job secret is {@code
 * VERBS4J_JOB_SECRET} or {@code VERBS4J_JOB_SECRET_FILE} if set, else a fresh one; it is left in a
 * 0600 file of the user's private directory, where ranks on this host find it; ranks on other hosts
 * need a copy of that file named by {@code VERBS4J_JOB_SECRET_FILE}. With {@code
 * -Dverbs.fabric.tls=on} it serves only TLS connections (otherwise it serves TLS to ranks that
 * start it, and plain text to the others). Logs through SLF4J.
 */
public final class CoordinatorMain {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorMain.class);

  private CoordinatorMain() {}

  /**
   * @param args {@code --port N [--host H] [--peer-timeout-ms MS]}
   * @throws InterruptedException if interrupted while serving
   */
  public static void main(String[] args) throws InterruptedException {
    String host = "0.0.0.0";
    int port = -1;
    long timeoutMs = 3000;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      switch (a) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--host" -> host = args[++i];
        case "--peer-timeout-ms" -> timeoutMs = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + a + " (--port N [--host H] [--peer-timeout-ms MS])");
      }
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port=" + port + " is required and must be in [0, 65535]");
    }
    // verbs.fabric.tls=on (the ranks' key, as a system property here): refuse plain-text ranks.
    boolean tls = io.github.verbs4j.fabric.FabricOptions.from(
        java.util.Map.of("verbs.fabric.tls", System.getProperty("verbs.fabric.tls", "off")), java.util.Map.of()).tls();
    Coordinator c = Coordinator.start(host, port, Duration.ofMillis(timeoutMs),
        io.github.verbs4j.fabric.auth.JobSecret.fromEnvironment(System.getenv())
            .orElseGet(io.github.verbs4j.fabric.auth.JobSecret::generate), tls);
    Runtime.getRuntime().addShutdownHook(new Thread(c::close, "verbs4j-coordinator-shutdown"));
    LOG.info("verbs4j coordinator serving on {}:{} (use verbs.coordinator=<this host>:{}); job secret in {} "
        + "(ranks on other hosts: copy it, mode 0600, and set VERBS4J_JOB_SECRET_FILE)", host, c.port(), c.port(), c.secretFile());
    new CountDownLatch(1).await();
  }
}
