package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.LinkLayer;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortState;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance of the device and its ports ({@code ibv_open_device}, {@code ibv_query_device},
 * {@code ibv_query_port}): reference/verbs-semantics.md §6 scenario 1, §4.7, and the rule that a
 * provider is chosen by configuration alone. Subclass it and return your {@link KitEnvironment};
 * see {@link AbstractConformance}.
 */
public abstract class DeviceConformance extends AbstractConformance {

  /** Beyond the pyverbs scenarios: the same test class passes with only the configuration changed. */
  @Test
  public void providerIsChosenByConfigurationAlone() {
    oneSided(p -> {
      VerbsConfig cfg = environment().config(0, 1, p.jobId());
      String provider = cfg.get(VerbsConfig.PROVIDER);
      assertEquals(provider, p.ctx().device().provider(), "the context comes from the provider the config names");
      List<Device> devices = Verbs.devices(cfg);
      assertFalse(devices.isEmpty(), "the configured provider lists its devices");
      assertTrue(devices.stream().allMatch(d -> d.provider().equals(provider)), devices::toString);
      assertTrue(devices.stream().anyMatch(d -> d.name().equals(p.ctx().device().name())),
          "the opened device is one of the listed devices: " + devices);
    });
  }

  /** Scenario 1: query port phys_port_cnt + k (k ≥ 1), and port 0, fail with EINVAL. */
  @Test
  public void queryPortBeyondPhysPortCntFailsWithEinval() {
    oneSided(p -> {
      int ports = p.ctx().queryDevice().physPortCnt();
      for (int k = 1; k <= 3; k++) {
        int port = ports + k;
        assertEinvalNaming("port=" + port, () -> p.ctx().queryPort(port));
      }
      assertEinvalNaming("port=0", () -> p.ctx().queryPort(0));
    });
  }

  /** §4.7 and CONFORMANCE.md (scenario 14): every port is an active InfiniBand port with a unicast LID. */
  @Test
  public void everyPortIsAnActiveInfinibandPortWithAUnicastLid() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      assertTrue(d.physPortCnt() >= 1, "phys_port_cnt");
      assertTrue(d.maxQp() >= 1 && d.maxQpWr() >= 1 && d.maxSge() >= 1 && d.maxCq() >= 1 && d.maxCqe() >= 1
          && d.maxMr() >= 1 && d.maxPd() >= 1 && d.numCompVectors() >= 1, d::toString);
      for (int port = 1; port <= d.physPortCnt(); port++) {
        PortAttr a = p.ctx().queryPort(port);
        assertEquals(PortState.ACTIVE, a.state(), "port " + port);
        assertEquals(LinkLayer.INFINIBAND, a.linkLayer(), "port " + port);
        assertTrue(a.lid() >= 1 && a.lid() <= 0xBFFF, "port " + port + " lid " + a.lid());
        assertTrue(a.activeMtu().bytes() <= a.maxMtu().bytes(), a::toString);
      }
    });
  }

  /** §4.7: the two ranks of a job are different nodes, told apart by their LIDs. */
  @Test
  public void ranksOfAJobHaveDistinctLids() {
    twoSided("ranksOfAJobHaveDistinctLidsBody");
  }

  /**
   * Body of {@link #ranksOfAJobHaveDistinctLids()}.
   *
   * @param p the rank
   */
  public void ranksOfAJobHaveDistinctLidsBody(Peer p) {
    int lid = p.ctx().queryPort(1).lid();
    long theirs = p.exchange("lid", lid)[0];
    assertNotEquals(lid, theirs, "rank " + p.rank() + " and rank " + p.other() + " share LID " + lid);
  }
}
