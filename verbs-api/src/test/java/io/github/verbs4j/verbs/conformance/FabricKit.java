package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The two environments every provider over sim-fabric runs the kit in, built from the provider's
 * name, its job-namespace key and (for processes) a way to start a coordinator:
 *
 * <ul>
 *   <li>{@link #local}: both ranks in this JVM on an in-JVM fabric named after the job;
 *   <li>{@link #netty2Proc}: rank 1 in a child JVM, the ranks joined by the netty fabric through a
 *       coordinator the parent starts for each job; the child learns its address from the system
 *       property {@code verbs4j.kit.coordinator.<provider>}. Jobs run one after another; a job's
 *       coordinator is closed when the next one starts.
 * </ul>
 *
 * <pre>{@code
 * static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("ib", "verbs.ib.job", () -> {
 *   Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(3));
 *   return new FabricKit.Started("127.0.0.1:" + c.port(), c::close);
 * });
 * }</pre>
 */
public final class FabricKit {
  /** Options of the child JVM: small heap, quick start. */
  private static final List<String> CHILD_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /**
   * A coordinator started for one job.
   *
   * @param address host:port for {@code verbs.coordinator}
   * @param closer stops it
   */
  public record Started(String address, AutoCloseable closer) {}

  private FabricKit() {}

  private static Map<String, String> base(String provider, String jobKey, int rank, int size, String jobId) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", provider);
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", Integer.toString(size));
    m.put(jobKey, "kit-" + jobId);
    return m;
  }

  /**
   * Both ranks in this JVM.
   *
   * @param provider {@code verbs.provider}
   * @param jobKey the provider's job-namespace key
   * @param extra further settings (e.g. a threading mode)
   * @param variant the environment's name after {@code provider/}
   * @return the environment
   */
  public static KitEnvironment local(String provider, String jobKey, Map<String, String> extra, String variant) {
    return local(provider, jobKey, extra, variant, ctx -> null);
  }

  /**
   * Both ranks in this JVM, with control of a rank's link ({@link KitEnvironment#linkControl}).
   *
   * @param provider {@code verbs.provider}
   * @param jobKey the provider's job-namespace key
   * @param extra further settings (e.g. a threading mode)
   * @param variant the environment's name after {@code provider/}
   * @param links the provider's link control of a context
   * @return the environment
   */
  public static KitEnvironment local(String provider, String jobKey, Map<String, String> extra, String variant,
      LinkControl.Factory links) {
    return new KitEnvironment() {
      @Override
      public String name() {
        return provider + "/" + variant;
      }

      @Override
      public VerbsConfig config(int rank, int size, String jobId) {
        Map<String, String> m = base(provider, jobKey, rank, size, jobId);
        m.put("verbs.fabric", "local");
        m.put("verbs.fabric.name", "kit-" + jobId);
        m.putAll(extra);
        return VerbsConfig.of(m);
      }

      @Override
      public boolean peersInProcesses() {
        return false;
      }

      @Override
      public LinkControl linkControl(Context ctx) {
        return links.of(ctx);
      }
    };
  }

  /**
   * Rank 1 in a child JVM over the netty fabric.
   *
   * @param provider {@code verbs.provider}
   * @param jobKey the provider's job-namespace key
   * @param starter starts a coordinator in this (the parent) JVM
   * @return the environment
   */
  public static KitEnvironment netty2Proc(String provider, String jobKey, Supplier<Started> starter) {
    return new Netty2Proc(provider, jobKey, starter, Map.of(), "", ctx -> null);
  }

  /**
   * {@link #netty2Proc(String, String, Supplier)} with more settings on both ranks.
   *
   * @param provider {@code verbs.provider}
   * @param jobKey the provider's job-namespace key
   * @param starter starts a coordinator in this (the parent) JVM
   * @param extra settings added to every rank's configuration
   * @param variant appended to the environment's name
   * @return the environment
   */
  public static KitEnvironment netty2Proc(String provider, String jobKey, Supplier<Started> starter,
      Map<String, String> extra, String variant) {
    return new Netty2Proc(provider, jobKey, starter, Map.copyOf(extra), variant, ctx -> null);
  }

  /**
   * {@link #netty2Proc(String, String, Supplier, Map, String)} with control of a rank's link
   * ({@link KitEnvironment#linkControl}).
   *
   * @param provider {@code verbs.provider}
   * @param jobKey the provider's job-namespace key
   * @param starter starts a coordinator in this (the parent) JVM
   * @param extra settings added to every rank's configuration
   * @param variant appended to the environment's name
   * @param links the provider's link control of a context
   * @return the environment
   */
  public static KitEnvironment netty2Proc(String provider, String jobKey, Supplier<Started> starter,
      Map<String, String> extra, String variant, LinkControl.Factory links) {
    return new Netty2Proc(provider, jobKey, starter, Map.copyOf(extra), variant, links);
  }

  private static final class Netty2Proc implements KitEnvironment {
    private final String provider;
    private final String jobKey;
    private final Supplier<Started> starter;
    private final Map<String, String> extra;
    private final String variant;
    private final String property;
    private final LinkControl.Factory links;
    private String currentJob;
    private Started current;

    Netty2Proc(String provider, String jobKey, Supplier<Started> starter, Map<String, String> extra, String variant,
        LinkControl.Factory links) {
      this.links = links;
      this.provider = provider;
      this.jobKey = jobKey;
      this.starter = starter;
      this.extra = extra;
      this.variant = variant;
      this.property = "verbs4j.kit.coordinator." + provider;
    }

    /** @return the coordinator address of {@code jobId}: the parent's, or one started here */
    private synchronized String coordinator(String jobId) {
      String fromParent = System.getProperty(property);
      if (fromParent != null) {
        return fromParent;
      }
      if (!jobId.equals(currentJob)) {
        if (current != null) {
          try {
            current.closer().close();
          } catch (Exception e) {
            throw new IllegalStateException("closing the coordinator of job " + currentJob, e);
          }
        }
        current = starter.get();
        currentJob = jobId;
      }
      return current.address();
    }

    @Override
    public String name() {
      return provider + "/netty-2proc" + (variant.isEmpty() ? "" : "-" + variant);
    }

    @Override
    public VerbsConfig config(int rank, int size, String jobId) {
      Map<String, String> m = base(provider, jobKey, rank, size, jobId);
      m.put("verbs.fabric", "netty");
      m.put("verbs.coordinator", coordinator(jobId));
      m.put("verbs.fabric.join-timeout-ms", "30000");
      m.putAll(extra);
      return VerbsConfig.of(m);
    }

    @Override
    public boolean peersInProcesses() {
      return true;
    }

    @Override
    public Map<String, String> childSystemProperties(String jobId) {
      return Map.of(property, coordinator(jobId));
    }

    @Override
    public List<String> childJvmOptions() {
      return CHILD_JVM;
    }

    @Override
    public LinkControl linkControl(Context ctx) {
      return links.of(ctx);
    }
  }

  /**
   * An environment whose child JVMs can map the netty fabric's shared-memory rings: Agrona needs
   * {@code jdk.internal.misc} exported ({@code verbs.fabric.shm}).
   *
   * @param env the environment, with {@code verbs.fabric.shm} set
   * @return the same environment with the flag on its child JVMs
   */
  public static KitEnvironment shm(KitEnvironment env) {
    return new ChildJvmOptions(env, List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));
  }

  /** An environment with more options for its child JVMs. */
  private static final class ChildJvmOptions extends ForwardingEnvironment {
    private final List<String> more;

    ChildJvmOptions(KitEnvironment env, List<String> more) {
      super(env);
      this.more = more;
    }

    @Override
    public List<String> childJvmOptions() {
      List<String> all = new ArrayList<>(env.childJvmOptions());
      all.addAll(more);
      return all;
    }
  }
}
