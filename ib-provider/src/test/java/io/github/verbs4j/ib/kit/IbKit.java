package io.github.verbs4j.ib.kit;

import io.github.verbs4j.fabric.NodeLinks;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.ib.IbContext;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LinkControl;
import java.time.Duration;
import java.util.Map;

/**
 * The environments the conformance kit runs in with the {@code ib} provider ({@link FabricKit}).
 *
 * <ul>
 *   <li>{@link #LOCAL}: both ranks in this JVM on an in-JVM fabric named after the job, default
 *       ({@code dedicated}) threading; {@link #LOCAL_INVOKER} the same with no engine threads
 *       ({@code verbs.threading=invoker}: the callers run the engines), for the classes that move
 *       data (RC and UD traffic, atomics, SRQ, completion errors, data integrity); the whole kit
 *       passes in this mode too, the rest is left out to keep the suite short; {@link
 *       #LOCAL_SHARED} with one engine thread for both devices ({@code shared}), for RC traffic.
 *   <li>{@link #NETTY_2PROC}: rank 1 in a child JVM, the two ranks joined by the netty fabric
 *       through a coordinator this JVM starts for each job ({@code dedicated}); {@link
 *       #NETTY_2PROC_INVOKER} the same with the callers running the engines and the fabric's I/O,
 *       for the classes that move data and wait for events; {@link #NETTY_2PROC_SHARED} with one
 *       engine thread per JVM and the fabric's event loops doing all the work, for RC traffic and
 *       data integrity. So every threading mode runs across processes. {@link #NETTY_2PROC_SHM}:
 *       {@link #NETTY_2PROC} with the data frames in shared-memory rings ({@code
 *       verbs.fabric.shm=required}), for RC traffic and data integrity.
 * </ul>
 *
 * <p>{@link #LOCAL} and {@link #NETTY_2PROC} can take a rank's link down ({@link #linkControl}).
 */
final class IbKit {
  static final KitEnvironment LOCAL = FabricKit.local("ib", "verbs.ib.job", Map.of(), "local", IbKit::linkControl);
  /** {@link #LOCAL} with {@code verbs.threading=invoker}. */
  static final KitEnvironment LOCAL_INVOKER = FabricKit.local("ib", "verbs.ib.job",
      Map.of("verbs.threading", "invoker"), "local-invoker");
  /** {@link #LOCAL} with {@code verbs.threading=shared}: one engine thread runs both ranks' devices. */
  static final KitEnvironment LOCAL_SHARED = FabricKit.local("ib", "verbs.ib.job",
      Map.of("verbs.threading", "shared"), "local-shared");
  static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator, Map.of(),
      "", IbKit::linkControl);
  /**
   * {@link #NETTY_2PROC} with the engines on the callers' threads and the callers driving the
   * fabric's I/O ({@code verbs.threading=invoker}, which sets {@code verbs.fabric.progress=caller}).
   */
  static final KitEnvironment NETTY_2PROC_INVOKER = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator,
      Map.of("verbs.threading", "invoker"), "invoker");

  /**
   * {@link #NETTY_2PROC} with one engine thread per JVM and posts and polls that only wake it
   * ({@code verbs.threading=shared}): the engine thread and the fabric's event loop do all the work.
   */
  static final KitEnvironment NETTY_2PROC_SHARED = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator,
      Map.of("verbs.threading", "shared"), "shared");

  /**
   * {@link #NETTY_2PROC} with every data frame between the two processes in shared-memory rings
   * ({@code verbs.fabric.shm=required}); the child JVM gets Agrona's {@code --add-exports}.
   */
  static final KitEnvironment NETTY_2PROC_SHM = FabricKit.shm(FabricKit.netty2Proc("ib", "verbs.ib.job",
      IbKit::coordinator, Map.of("verbs.fabric.shm", "required"), "shm", IbKit::linkControl));

  /** {@link #NETTY_2PROC} over TCP with mutual TLS on every connection ({@code verbs.fabric.tls=on}). */
  static final KitEnvironment NETTY_2PROC_TLS = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator,
      Map.of("verbs.fabric.transport", "tcp", "verbs.fabric.tls", "on"), "tls");

  private IbKit() {}

  /**
   * Fault injection on a context's port: its fabric node's own links ({@code FabricNode.links()}:
   * the node's uplink and the switch's link to it) taken down and up.
   */
  static LinkControl linkControl(Context ctx) {
    if (!(ctx instanceof IbContext c) || c.fabricNode() == null) {
      return null;
    }
    NodeLinks links = c.fabricNode().links();
    return LinkControl.of(links::takeDown, links::bringUp);
  }

  static FabricKit.Started coordinator() {
    Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(3));
    return new FabricKit.Started("127.0.0.1:" + c.port(), c::close);
  }
}
