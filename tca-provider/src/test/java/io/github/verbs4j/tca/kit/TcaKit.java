package io.github.verbs4j.tca.kit;

import io.github.verbs4j.fabric.NodeLinks;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.tca.peach2.FabricLink;
import io.github.verbs4j.tca.verbs.TcaTestAccess;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LinkControl;
import java.time.Duration;
import java.util.Map;

/**
 * The environments the conformance kit runs in with the {@code tca} provider ({@link FabricKit}).
 *
 * <ul>
 *   <li>{@link #LOCAL}: both ranks in this JVM on an in-JVM fabric named after the job (a PEACH2
 *       sub-cluster of two rings of eight, the provider's default topology), default ({@code
 *       dedicated}) threading; {@link #LOCAL_INVOKER} the same with no proxy threads ({@code
 *       verbs.threading=invoker}: posts, polls, landed writes and board timers run the proxies),
 *       for the classes that move data; {@link #LOCAL_SHARED} with one engine thread running both
 *       ranks' proxies ({@code shared}), for RC traffic.
 *   <li>{@link #NETTY_2PROC}: rank 1 in a child JVM, the two ranks joined by the netty fabric
 *       through a coordinator this JVM starts for each job ({@code dedicated}); {@link
 *       #NETTY_2PROC_INVOKER} the same with the callers running the proxies and the fabric's I/O;
 *       {@link #NETTY_2PROC_SHARED} with one engine thread per JVM and the fabric's event loops
 *       doing all the work. So every threading mode runs across processes.
 * </ul>
 *
 * <p>Both can take a rank's link down ({@link #linkControl}).
 */
final class TcaKit {
  static final KitEnvironment LOCAL = FabricKit.local("tca", "verbs.tca.job", Map.of(), "local", TcaKit::linkControl);
  static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator, Map.of(),
      "", TcaKit::linkControl);

  /** {@link #LOCAL} with {@code verbs.threading=invoker}. */
  static final KitEnvironment LOCAL_INVOKER = FabricKit.local("tca", "verbs.tca.job",
      Map.of("verbs.threading", "invoker"), "local-invoker");
  /** {@link #LOCAL} with {@code verbs.threading=shared}: one engine thread runs both ranks' proxies. */
  static final KitEnvironment LOCAL_SHARED = FabricKit.local("tca", "verbs.tca.job",
      Map.of("verbs.threading", "shared"), "local-shared");
  /**
   * {@link #NETTY_2PROC} with the proxies on the callers' threads and the callers driving the
   * fabric's I/O ({@code verbs.threading=invoker}, which sets {@code verbs.fabric.progress=caller}).
   */
  static final KitEnvironment NETTY_2PROC_INVOKER = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator,
      Map.of("verbs.threading", "invoker"), "invoker");
  /**
   * {@link #NETTY_2PROC} with one engine thread per JVM and posts and polls that only wake it
   * ({@code verbs.threading=shared}): the engine thread and the fabric's event loop do all the work.
   */
  static final KitEnvironment NETTY_2PROC_SHARED = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator,
      Map.of("verbs.threading", "shared"), "shared");

  /**
   * {@link #NETTY_2PROC} with the frames between the two JVMs in shared-memory rings ({@code
   * verbs.fabric.shm=required}), woken by the doorbell (tca runs its fabric with its own threads).
   */
  static final KitEnvironment NETTY_2PROC_SHM = FabricKit.shm(FabricKit.netty2Proc("tca", "verbs.tca.job",
      TcaKit::coordinator, Map.of("verbs.fabric.shm", "required"), "shm", TcaKit::linkControl));

  /** {@link #NETTY_2PROC} over TCP with mutual TLS on every connection ({@code verbs.fabric.tls=on}). */
  static final KitEnvironment NETTY_2PROC_TLS = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator,
      Map.of("verbs.fabric.transport", "tcp", "verbs.fabric.tls", "on"), "tls");

  private TcaKit() {}

  /**
   * Fault injection on a context's port: every cable of its board (E, W and S, both directions)
   * cut and restored through the fabric node underneath ({@code FabricNode.links()}); the
   * neighbouring boards' ports go down with the shared cables (on the netty fabric only in this
   * rank's process, which then drops what they send over them).
   */
  static LinkControl linkControl(Context ctx) {
    if (!(TcaTestAccess.board(ctx).link() instanceof FabricLink f)) {
      return null;
    }
    NodeLinks links = f.fabricNode().links();
    return LinkControl.of(links::takeDown, links::bringUp);
  }

  static FabricKit.Started coordinator() {
    Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(3));
    return new FabricKit.Started("127.0.0.1:" + c.port(), c::close);
  }
}
