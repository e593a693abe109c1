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
 *       sub-cluster of two rings of eight, the provider's default topology).
 *   <li>{@link #NETTY_2PROC}: rank 1 in a child JVM, the two ranks joined by the netty fabric
 *       through a coordinator this JVM starts for each job.
 * </ul>
 *
 * <p>Both can take a rank's link down ({@link #linkControl}).
 */
final class TcaKit {
  static final KitEnvironment LOCAL = FabricKit.local("tca", "verbs.tca.job", Map.of(), "local", TcaKit::linkControl);
  static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator, Map.of(),
      "", TcaKit::linkControl);

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
