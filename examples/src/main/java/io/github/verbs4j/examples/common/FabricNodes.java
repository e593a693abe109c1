package io.github.verbs4j.examples.common;

import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.verbs.Context;
import java.util.Optional;

/** The simulated fabric's node under a device, for programs that read what the fabric holds. */
public final class FabricNodes {
  private FabricNodes() {}

  /**
   * @param ctx an open device
   * @return its fabric node, or empty when its provider does not expose one (the ib provider's
   *     context has a public {@code fabricNode()}; tca's has none)
   */
  public static Optional<FabricNode> of(Context ctx) {
    try {
      return Optional.of((FabricNode) ctx.getClass().getMethod("fabricNode").invoke(ctx));
    } catch (ReflectiveOperationException | ClassCastException e) {
      return Optional.empty();
    }
  }
}
