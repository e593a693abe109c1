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
 *   <li>{@link #LOCAL}: both ranks in this JVM on an in-JVM fabric named after the job; {@link
 *       #LOCAL_CALLER} the same with the engines on the callers' threads, for the classes that move
 *       data (RC and UD traffic, atomics, SRQ, completion errors, data integrity); the whole kit
 *       passes in this mode too, the rest is left out to keep the suite short.
 *   <li>{@link #NETTY_2PROC}: rank 1 in a child JVM, the two ranks joined by the netty fabric
 *       through a coordinator this JVM starts for each job; {@link #NETTY_2PROC_CALLER} the same
 *       with the callers running the engines and the fabric's I/O, for the classes that move data
 *       and wait for events; {@link #NETTY_2PROC_ENGINE} with the engine and event-loop threads
 *       only (no inline calls), for RC traffic and data integrity.
 * </ul>
 *
 * <p>{@link #LOCAL} and {@link #NETTY_2PROC} can take a rank's link down ({@link #linkControl}).
 */
final class IbKit {
  static final KitEnvironment LOCAL = FabricKit.local("ib", "verbs.ib.job", Map.of(), "local", IbKit::linkControl);
  /** {@link #LOCAL} with {@code verbs.ib.threading=caller}. */
  static final KitEnvironment LOCAL_CALLER = FabricKit.local("ib", "verbs.ib.job",
      Map.of("verbs.ib.threading", "caller"), "local-caller");
  static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator, Map.of(),
      "", IbKit::linkControl);
  /**
   * {@link #NETTY_2PROC} with the engines on the callers' threads and the callers driving the
   * fabric's I/O ({@code verbs.ib.threading=caller}, {@code verbs.fabric.progress=caller}).
   */
  static final KitEnvironment NETTY_2PROC_CALLER = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator,
      Map.of("verbs.ib.threading", "caller", "verbs.fabric.progress", "caller"), "caller");

  /**
   * {@link #NETTY_2PROC} without inline calls ({@code verbs.ib.inline-calls=false}): the engine
   * thread and the fabric's event loop do all the work, as the default did before inline calls.
   */
  static final KitEnvironment NETTY_2PROC_ENGINE = FabricKit.netty2Proc("ib", "verbs.ib.job", IbKit::coordinator,
      Map.of("verbs.ib.inline-calls", "false"), "engine");

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
