package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code verbs.ib.profile}: one option selects the HCA's and the links' modelled parameters. */
class IbProfileTest {
  @Test
  void theDefaultProfileKeepsTheFabricsAndEnginesDefaults() {
    VerbsConfig c = VerbsConfig.of(Map.of());
    assertEquals(IbProfile.DEFAULT, IbConfig.profile(c));
    IbParams p = IbConfig.params(c);
    assertEquals(IbParams.defaults().modelPacketNanos, p.modelPacketNanos);
    assertEquals(IbParams.defaults().modelDmaMbPerSec, p.modelDmaMbPerSec);
    assertFalse(IbConfig.fabricSettings(c).containsKey("verbs.link.latency-ns"));
  }

  @Test
  void theConnectX3QdrProfileSetsLinkAndHcaParameters() {
    VerbsConfig c = VerbsConfig.of(Map.of("verbs.ib.profile", "connectx3-qdr"));
    IbParams p = IbConfig.params(c);
    assertEquals(180, p.modelPacketNanos);
    assertEquals(7_150, p.modelDmaMbPerSec);
    Map<String, String> f = IbConfig.fabricSettings(c);
    assertEquals("100", f.get("verbs.link.latency-ns"));
    assertEquals("4000", f.get("verbs.link.bandwidth-mb-s"), "QDR 4X: 40 Gb/s signalling, 32 Gb/s data");
    assertEquals("170", f.get("verbs.link.forward-ns"));
  }

  @Test
  void aKeySetExplicitlyWinsOverTheProfile() {
    VerbsConfig c = VerbsConfig.of(Map.of("verbs.ib.profile", "connectx3-qdr", "verbs.link.latency-ns", "300",
        "verbs.ib.model.packet-ns", "50"));
    assertEquals("300", IbConfig.fabricSettings(c).get("verbs.link.latency-ns"));
    assertEquals(50, IbConfig.params(c).modelPacketNanos);
  }

  @Test
  void anUnknownProfileIsRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IbProfile.of("fdr"));
    assertTrue(e.getMessage().contains("verbs.ib.profile=fdr"), e.getMessage());
  }
}
