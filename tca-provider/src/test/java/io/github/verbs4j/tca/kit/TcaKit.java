package io.github.verbs4j.tca.kit;

import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The environments the conformance kit runs in with the {@code tca} provider.
 *
 * <ul>
 *   <li>{@link #LOCAL}: both ranks in this JVM on an in-JVM fabric named after the job (a PEACH2
 *       sub-cluster of two rings of eight, the provider's default topology).
 *   <li>{@link #NETTY_2PROC}: rank 1 in a child JVM, the two ranks joined by the netty fabric
 *       through a coordinator this JVM starts for each job (the child learns its address from a
 *       system property).
 * </ul>
 */
final class TcaKit {
  /** System property that carries a job's coordinator address to the child JVM. */
  static final String COORDINATOR_PROPERTY = "verbs4j.tca.kit.coordinator";

  static final KitEnvironment LOCAL = new Local();
  static final KitEnvironment NETTY_2PROC = new Netty2Proc();

  private TcaKit() {}

  private static Map<String, String> base(int rank, int size, String jobId) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", "tca");
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", Integer.toString(size));
    m.put("verbs.tca.job", "kit-" + jobId);
    return m;
  }

  private static final class Local implements KitEnvironment {

    @Override
    public String name() {
      return "tca/local";
    }

    @Override
    public VerbsConfig config(int rank, int size, String jobId) {
      Map<String, String> m = base(rank, size, jobId);
      m.put("verbs.fabric", "local");
      m.put("verbs.fabric.name", "kit-" + jobId);
      return VerbsConfig.of(m);
    }

    @Override
    public boolean peersInProcesses() {
      return false;
    }
  }

  private static final class Netty2Proc implements KitEnvironment {
    /** The coordinator of the current job (jobs run one after another); closed when the next starts. */
    private static String currentJob;
    private static Coordinator current;

    /** @return the coordinator address of {@code jobId}, starting one in this (the parent) JVM */
    private static synchronized String coordinator(String jobId) {
      String fromParent = System.getProperty(COORDINATOR_PROPERTY);
      if (fromParent != null) {
        return fromParent;
      }
      if (!jobId.equals(currentJob)) {
        if (current != null) {
          current.close();
        }
        current = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(3));
        currentJob = jobId;
      }
      return "127.0.0.1:" + current.port();
    }

    @Override
    public String name() {
      return "tca/netty-2proc";
    }

    @Override
    public VerbsConfig config(int rank, int size, String jobId) {
      Map<String, String> m = base(rank, size, jobId);
      m.put("verbs.fabric", "netty");
      m.put("verbs.coordinator", coordinator(jobId));
      m.put("verbs.fabric.join-timeout-ms", "30000");
      return VerbsConfig.of(m);
    }

    @Override
    public boolean peersInProcesses() {
      return true;
    }

    @Override
    public Map<String, String> childSystemProperties(String jobId) {
      return Map.of(COORDINATOR_PROPERTY, coordinator(jobId));
    }

    @Override
    public List<String> childJvmOptions() {
      return List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    }
  }
}
