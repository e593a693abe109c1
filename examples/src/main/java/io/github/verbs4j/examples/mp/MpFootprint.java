package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.spi.HcaFootprint;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one rank of a {@link VerbsCommunicator} should hold, by {@code verbs4j.memory.bytes}
 * component, predicted from the layer's sizes and {@link HcaFootprint} (the same primitives the
 * meters use), so that a measurement can be set next to it. Links: every other rank for the
 * baseline; on demand min(peers, γ), the cap (a rank may hold up to 2γ for a moment while it
 * closes the links it accepted), plus the spare rings of closed links ({@link RingPool}: γ/4 of
 * them once the rank has closed links, each its ring's bytes and a registration); DC: no buffers
 * per peer, only the fixed pools and a few hundred bytes of records and an AH per peer talked to;
 * hybrid: DC's, plus an RC QP and ring per source
 * moved to RC (at most the cap), a receive ring per source on RDMA over DC, and the traffic history.
 */
public final class MpFootprint {
  private MpFootprint() {}

  /**
   * DC: 2 DCIs and a DCT on the shared receive pool, the shared send pool; per peer talked to only
   * an AH and a peer and link record (no buffers).
   */
  private static Map<MemoryComponent, Long> predictDc(int ranks, int peers, MpConfig config) {
    long slotSize = slotSize(config);
    int pool = config.sharedReceive() > 0 ? config.sharedReceive() : MpConfig.DEFAULT_DC_POOL;
    int depth = 1024;
    Map<MemoryComponent, Long> m = new EnumMap<>(MemoryComponent.class);
    m.put(MemoryComponent.CONTEXT, HcaFootprint.context());
    m.put(MemoryComponent.PD, HcaFootprint.pd());
    m.put(MemoryComponent.CQ, HcaFootprint.cq(pool + config.dcInitiators() * depth));
    m.put(MemoryComponent.SRQ, HcaFootprint.srq(pool, 1));
    QpCap dci = QpCap.builder().maxSendWr(depth).maxRecvWr(0).maxSendSge(1).maxRecvSge(0).build();
    m.put(MemoryComponent.DCI, config.dcInitiators() * HcaFootprint.qp(QpType.DCI, dci, false));
    m.put(MemoryComponent.DCT, HcaFootprint.qp(QpType.DCT, QpCap.builder().maxRecvWr(0).maxRecvSge(0).build(), true));
    m.put(MemoryComponent.AH, peers * HcaFootprint.ah());
    m.put(MemoryComponent.MR, 2 * HcaFootprint.mr());
    m.put(MemoryComponent.MP_PEERS, PeerTable.bytes(peers) + (long) peers * (MpMemory.PEER_BYTES
        + MpMemory.LINK_BYTES));
    m.put(MemoryComponent.MP_BUFFERS, (pool + (long) Connections.DC_SEND_BUFFERS) * slotSize);
    return m;
  }

  /**
   * Hybrid: DC's resources and records for every peer talked to (a peer keeps its DC link and AH
   * when it moves), and for each of {@code links} sources on RC an RC QP with its own receive queue
   * and a ring of {@code slots} receive and send slots; the CQ is sized for the cap of RC links; the
   * traffic history ({@link TrafficHistory#bytes(int)}); for each of {@code rings} sources on RDMA
   * over DC a ring of {@code slots} receive slots and its registration.
   */
  private static Map<MemoryComponent, Long> predictHybrid(int ranks, int peers, MpConfig config, int links,
      int rings) {
    Map<MemoryComponent, Long> m = predictDc(ranks, peers, config);
    int s = config.slots();
    int pool = config.sharedReceive() > 0 ? config.sharedReceive() : MpConfig.DEFAULT_DC_POOL;
    int maxLinks = Math.min(Math.max(1, ranks - 1), config.hybrid().rcLinks());
    m.put(MemoryComponent.CQ, HcaFootprint.cq(Math.max(1, maxLinks * (2 * s + Connections.RDMA_IN_FLIGHT) + pool
        + config.dcInitiators() * 1024)));
    QpCap rc = QpCap.builder().maxSendWr(s + Connections.RDMA_IN_FLIGHT).maxRecvWr(s).maxRecvSge(1).build();
    m.put(MemoryComponent.QP, links * HcaFootprint.qp(QpType.RC, rc, false));
    m.merge(MemoryComponent.MR, (links + rings) * HcaFootprint.mr(), Long::sum);
    boolean nodeRings = config.strategy() == MpConfig.Strategy.SHARED; // the rings are the node's file
    m.merge(MemoryComponent.MP_BUFFERS, (links * 2L + (nodeRings ? 0 : rings)) * s * slotSize(config)
        + (nodeRings ? nodeFileShare(ranks, config) : 0), Long::sum);
    m.merge(MemoryComponent.MP_PEERS, links * MpMemory.linkBytes(s) + TrafficHistory.bytes(ranks), Long::sum);
    return m;
  }

  /**
   * {@link MpConfig.Strategy#SHARED}: a rank's share of its node's file of rings ({@link NodeRings}),
   * the files of the job's nodes over its ranks (each node's first rank holds the whole file).
   */
  private static long nodeFileShare(int ranks, MpConfig config) {
    int ppn = config.hybrid().ppn();
    long nodes = (ranks + ppn - 1) / ppn;
    return NodeRings.fileBytes(Connections.nodeRingCount(config), (long) config.slots() * slotSize(config)) * nodes
        / ranks;
  }

  /**
   * The hybrid's (and {@link MpConfig.Strategy#SHARED}'s) bytes by component.
   *
   * @param ranks the job size
   * @param peers the ranks this rank exchanges messages with
   * @param config the settings ({@link MpConfig.Strategy#HYBRID})
   * @param rcLinks its RC links
   * @param rings the rings it gave sources for RDMA over DC
   * @return predicted bytes by component
   */
  public static Map<MemoryComponent, Long> predictHybrid(int ranks, int peers, MpConfig config, long rcLinks,
      long rings) {
    return predictHybrid(ranks, peers, config, (int) rcLinks, (int) rings);
  }

  /**
   * DC's bytes per peer talked to, beyond the fixed part and the rank table ({@link
   * #rankTableBytes}): its AH, its peer record and its link record.
   *
   * @return bytes
   */
  public static long dcBytesPerPeer() {
    return HcaFootprint.ah() + MpMemory.PEER_BYTES + MpMemory.LINK_BYTES;
  }

  /**
   * @param peers records in a rank's table (the ranks it has talked to)
   * @return the bytes of its rank table, hashed by rank (grows in steps as the table doubles)
   */
  public static long rankTableBytes(int peers) {
    return PeerTable.bytes(peers);
  }

  private static long slotSize(MpConfig config) {
    return (Wire.HEADER_LENGTH + config.eagerLimit() + 63) / 64 * 64;
  }

  /**
   * @param ranks the job size
   * @param peers the ranks this rank exchanges messages with
   * @param config the settings (slots are not reduced by device limits here)
   * @return predicted bytes by component (components without bytes are left out)
   */
  public static Map<MemoryComponent, Long> predict(int ranks, int peers, MpConfig config) {
    if (config.strategy().switches()) { // every peer heavy: RC up to the cap, then DC RDMA
      int perNode = config.strategy() == MpConfig.Strategy.SHARED ? Math.min(ranks, config.hybrid().ppn()) : 1;
      int rc = Math.min(peers, config.hybrid().rcLinks() / perNode);
      int rings = Math.min(peers - rc, Math.max(0, HybridSwitch.RINGS - config.hybrid().rcLinks()) / perNode);
      return predictHybrid(ranks, peers, config, rc, rings);
    }
    if (config.strategy() != MpConfig.Strategy.ON_DEMAND) {
      return predict(ranks, peers, config, ranks - 1);
    }
    int links = Math.min(peers, config.gamma());
    return predict(ranks, peers, config, links, Math.min(RingPool.maxSpares(config.gamma()), peers - links));
  }

  /**
   * @param ranks the job size
   * @param peers the ranks this rank exchanges messages with
   * @param config the settings
   * @param links the links the rank holds
   * @return predicted bytes by component for that many links
   */
  public static Map<MemoryComponent, Long> predict(int ranks, int peers, MpConfig config, int links) {
    return predict(ranks, peers, config, links, 0);
  }

  /**
   * @param ranks the job size
   * @param peers the ranks this rank exchanges messages with
   * @param config the settings
   * @param links the links the rank holds
   * @param spares the spare rings it holds (on demand: rings of closed links kept for the next)
   * @return predicted bytes by component for that many links and spares
   */
  public static Map<MemoryComponent, Long> predict(int ranks, int peers, MpConfig config, int links, int spares) {
    if (config.strategy() == MpConfig.Strategy.DC) {
      return predictDc(ranks, peers, config);
    }
    if (config.strategy().switches()) {
      return predictHybrid(ranks, peers, config, links, 0);
    }
    int others = Math.max(1, ranks - 1);
    boolean onDemand = config.strategy() == MpConfig.Strategy.ON_DEMAND;
    int maxLinks = onDemand ? Math.min(others, 2 * config.gamma()) : others;
    int records = onDemand ? peers : ranks - 1;
    int s = config.slots();
    long slotSize = slotSize(config);
    int pool = config.sharedReceive();
    boolean shared = pool > 0;
    int control = (onDemand ? ConnectionManager.CONTROL_CQES : 0) + pool;
    Map<MemoryComponent, Long> m = new EnumMap<>(MemoryComponent.class);
    m.put(MemoryComponent.CONTEXT, HcaFootprint.context());
    m.put(MemoryComponent.PD, HcaFootprint.pd());
    m.put(MemoryComponent.CQ, HcaFootprint.cq(Math.max(1, maxLinks * ((shared ? 1 : 2) * s
        + Connections.RDMA_IN_FLIGHT) + control)));
    QpCap rc = QpCap.builder().maxSendWr(s + Connections.RDMA_IN_FLIGHT).maxRecvWr(shared ? 0 : s)
        .maxRecvSge(shared ? 0 : 1).build();
    long qp = links * HcaFootprint.qp(QpType.RC, rc, shared);
    long mr = (links + spares) * HcaFootprint.mr();
    long buffers = (links + spares) * (shared ? 1L : 2L) * s * slotSize;
    if (shared) {
      m.put(MemoryComponent.SRQ, HcaFootprint.srq(pool, 1));
      mr += HcaFootprint.mr();
      buffers += pool * slotSize;
    }
    long peerBytes = PeerTable.bytes(records) + (long) records * MpMemory.PEER_BYTES + links * MpMemory.linkBytes(s);
    if (onDemand) {
      QpCap ud = QpCap.builder().maxSendWr(ConnectionManager.CONTROL_SENDS).maxRecvWr(ConnectionManager.CONTROL_RECVS)
          .build();
      qp += HcaFootprint.qp(QpType.UD, ud, false);
      mr += HcaFootprint.mr();
      buffers += ConnectionManager.CONTROL_BYTES;
      m.put(MemoryComponent.AH, links * HcaFootprint.ah());
    }
    m.put(MemoryComponent.QP, qp);
    m.put(MemoryComponent.MR, mr);
    m.put(MemoryComponent.MP_PEERS, peerBytes);
    m.put(MemoryComponent.MP_BUFFERS, buffers);
    return m;
  }
}
