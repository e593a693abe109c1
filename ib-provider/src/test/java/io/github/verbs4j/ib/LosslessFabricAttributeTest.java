package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The ib device says it needs no lossless fabric: its RC transport retransmits what is lost. */
class LosslessFabricAttributeTest {
  @Test
  void theIbDeviceDoesNotRequireALosslessFabric() {
    try (Context ctx = Verbs.open(VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.fabric", "local",
        "verbs.fabric.name", "lossless-" + UUID.randomUUID())))) {
      assertFalse(ctx.queryDevice().requiresLosslessFabric());
    }
  }
}
