package io.github.verbs4j.tca.kit;

import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
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
 */
final class TcaKit {
  static final KitEnvironment LOCAL = FabricKit.local("tca", "verbs.tca.job", Map.of(), "local");
  static final KitEnvironment NETTY_2PROC = FabricKit.netty2Proc("tca", "verbs.tca.job", TcaKit::coordinator);

  private TcaKit() {}

  static FabricKit.Started coordinator() {
    Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(3));
    return new FabricKit.Started("127.0.0.1:" + c.port(), c::close);
  }
}
