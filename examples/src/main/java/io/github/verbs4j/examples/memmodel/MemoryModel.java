package io.github.verbs4j.examples.memmodel;

import static io.github.verbs4j.examples.memmodel.Primitive.ALLOC_HEADER;
import static io.github.verbs4j.examples.memmodel.Primitive.BOC;
import static io.github.verbs4j.examples.memmodel.Primitive.BUFFER_SLOT;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_HASHED_PER_GAMMA;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_HASHED_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_NODE_HASHED;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_NODE_PER_GAMMA;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_NODE_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_PER_LOCAL_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_PER_NODE;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.COMM_SHARED_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.CONTROL_BUFFER;
import static io.github.verbs4j.examples.memmodel.Primitive.CONTROL_RECV_WRS;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_ADDRESS;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_CREDIT_QP;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_DATA_QPS;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_DATA_QP_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_HEADER;
import static io.github.verbs4j.examples.memmodel.Primitive.DC_RECV_WRS;
import static io.github.verbs4j.examples.memmodel.Primitive.HASH_BUCKET;
import static io.github.verbs4j.examples.memmodel.Primitive.HASH_KEY;
import static io.github.verbs4j.examples.memmodel.Primitive.HASH_NEXT;
import static io.github.verbs4j.examples.memmodel.Primitive.HISTORY_COUNTER;
import static io.github.verbs4j.examples.memmodel.Primitive.HISTORY_FULL_PROCESSES;
import static io.github.verbs4j.examples.memmodel.Primitive.HISTORY_WINDOWS;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_KEYS_PER_NODE;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_KEYS_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_KEYS_PER_PROCESS_HASHED;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_LINK;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.KVS_SLOT;
import static io.github.verbs4j.examples.memmodel.Primitive.NODE_RINGS;
import static io.github.verbs4j.examples.memmodel.Primitive.NODE_ROOTS_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.OTHER_ERRATUM;
import static io.github.verbs4j.examples.memmodel.Primitive.OTHER_PER_NODE;
import static io.github.verbs4j.examples.memmodel.Primitive.OTHER_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.PAGE_SLACK;
import static io.github.verbs4j.examples.memmodel.Primitive.PMI_FIXED;
import static io.github.verbs4j.examples.memmodel.Primitive.PMI_PROXY;
import static io.github.verbs4j.examples.memmodel.Primitive.POINTER;
import static io.github.verbs4j.examples.memmodel.Primitive.RC_CQ_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.RC_QP;
import static io.github.verbs4j.examples.memmodel.Primitive.RC_QP_CAP;
import static io.github.verbs4j.examples.memmodel.Primitive.REG_CACHE;
import static io.github.verbs4j.examples.memmodel.Primitive.RING_SLOTS;
import static io.github.verbs4j.examples.memmodel.Primitive.RING_STRUCT;
import static io.github.verbs4j.examples.memmodel.Primitive.SELECT_ENTRIES;
import static io.github.verbs4j.examples.memmodel.Primitive.SELECT_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.SELECT_VALUE;
import static io.github.verbs4j.examples.memmodel.Primitive.SEND_STAGING;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_PER_LOCAL_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_PER_LOCAL_PAIR_HASHED;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_PER_NODE;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.SHM_RANK_TABLES_HASHED;
import static io.github.verbs4j.examples.memmodel.Primitive.SWITCH_QP;
import static io.github.verbs4j.examples.memmodel.Primitive.VC;
import static io.github.verbs4j.examples.memmodel.Primitive.VC_HEADER;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_HASHED_PER_GAMMA;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_HASHED_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_NODE_HASHED;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_NODE_PER_GAMMA;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_PER_LOCAL_PAIR;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_PER_NODE;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_PER_PROCESS;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Primitive.WORLD_SHARED_RANK_TABLES;
import static io.github.verbs4j.examples.memmodel.Strategy.Technique.DC_TRANSPORT;
import static io.github.verbs4j.examples.memmodel.Strategy.Technique.NODE_SHARING;
import static io.github.verbs4j.examples.memmodel.Strategy.Technique.ON_DEMAND;
import static io.github.verbs4j.examples.memmodel.Strategy.Technique.SWITCHING;

import java.util.EnumMap;
import java.util.Map;

/**
 * The analytic model of seed 003: per-node memory of MPICH + LLC over InfiniBand for a job in
 * which every process talks to every other (§2.3), for each {@link Strategy}. Every component is a
 * sum of {@link Primitive} sizes times counts that follow from the {@link Scale}; with
 * {@link Strategy#BASELINE} the components are the paper's eqs. (1)-(7) (eq. (4) as corrected by the
 * erratum), with {@link Strategy#SHARED} its eqs. (8)-(15) (eq. (11) as corrected).
 *
 * <p>Counts used below, per node: n processes in the job, m per node, N = n/m nodes; a process has
 * n - m remote peers. With on-demand contexts a node holds at most γ: {@code active} of them (all
 * peers) and {@code activeRemote} (peers on other nodes, which need network state). At the paper's
 * scale both are γ.
 */
public final class MemoryModel {
  private MemoryModel() {}

  /**
   * @param scale the scenario
   * @param strategy the strategy
   * @return the bytes per node of every component
   */
  public static Breakdown evaluate(Scale scale, Strategy strategy) {
    Counts k = new Counts(scale);
    Map<Component, Long> bytes = new EnumMap<>(Component.class);
    bytes.put(Component.BUFFERS, buffers(k, strategy));
    bytes.put(Component.LOW_LEVEL_CONTEXTS, lowLevel(k, strategy));
    bytes.put(Component.HIGH_LEVEL_CONTEXTS, highLevel(k, strategy));
    bytes.put(Component.SWITCHING, strategy.uses(SWITCHING) ? switching(k) : 0L);
    bytes.put(Component.COMMUNICATORS, strategy.uses(NODE_SHARING) ? communicatorsHashed(k) : communicators(k));
    bytes.put(Component.SHARED_MEMORY, sharedMemory(k, strategy.uses(NODE_SHARING)));
    bytes.put(Component.PROCESS_MANAGEMENT, strategy.uses(NODE_SHARING) ? kvsByHash(k) : kvsAtRoot(k));
    // measured constants, not predicted: eq. (7) and what the erratum adds to it
    bytes.put(Component.OTHER, OTHER_PER_PROCESS.value() * k.m + OTHER_PER_NODE.value() + OTHER_ERRATUM.value());
    return new Breakdown(scale, strategy, bytes);
  }

  /**
   * The n-proportional coefficient of a component at a scale: the bytes per node it adds per extra
   * process in the job, measured between this scale and twice its node count. It is the number the
   * paper's "n-proportional term" columns evaluate to (66896·m for buffers, …).
   *
   * @param scale the scenario
   * @param strategy the strategy
   * @param c the component
   * @return bytes per node per process in the job
   */
  public static double perProcessSlope(Scale scale, Strategy strategy, Component c) {
    Scale twice = scale.withNodes(Math.min(Scale.MAX_NODES, scale.nodes() * 2));
    Scale base = twice.nodes() == scale.nodes() ? scale.withNodes(scale.nodes() / 2) : scale;
    long dn = twice.processes() - base.processes();
    return (double) (evaluate(twice, strategy).of(c) - evaluate(base, strategy).of(c)) / dn;
  }

  /** The counts every formula uses. */
  private static final class Counts {
    final long n;
    final long m;
    final long nodes;
    final long c;
    final long gamma;
    final long remotePeers;
    final long active;
    final long activeRemote;

    Counts(Scale s) {
      n = s.processes();
      m = s.ppn();
      nodes = s.nodes();
      c = s.comms();
      gamma = s.gamma();
      remotePeers = n - m;
      active = Math.min(gamma, m * (n - 1));
      activeRemote = Math.min(gamma, m * remotePeers);
    }
  }

  /** A table of {@code entries} values of {@code entryBytes}. */
  private static long table(long entries, long entryBytes) {
    return entries * entryBytes + ALLOC_HEADER.value();
  }

  /** A hashed list: {@code buckets} heads and {@code entries} nodes of key, next and value. */
  private static long hashedList(long buckets, long entries, long valueBytes) {
    return HASH_BUCKET.value() * buckets + (valueBytes + HASH_KEY.value() + HASH_NEXT.value()) * entries
        + ALLOC_HEADER.value();
  }

  /** One eager ring with its management struct. */
  private static long ring() {
    return RING_SLOTS.value() * BUFFER_SLOT.value() + RING_STRUCT.value();
  }

  /** A pool of {@code count} rings (one allocation). */
  private static long ringPool(long count) {
    return count * ring() + ALLOC_HEADER.value();
  }

  /** Per process, whatever the strategy: the registration cache and send staging (§2.3.4). */
  private static long perProcessBufferState(Counts k) {
    return k.m * (REG_CACHE.value() + SEND_STAGING.value());
  }

  /** The receive buffers of the data DC QPs, shared by every source (§3.4). */
  private static long dcReceivePool() {
    return DC_DATA_QPS.value() * (DC_RECV_WRS.value() * BUFFER_SLOT.value() + PAGE_SLACK.value());
  }

  /** Receive buffers of a control DC QP (credit or switching). */
  private static long controlReceiveBuffers() {
    return table(CONTROL_RECV_WRS.value(), CONTROL_BUFFER.value());
  }

  /** Eq. (4), erratum; on demand: a ring per active remote context; DC: eq. (11), erratum. */
  private static long buffers(Counts k, Strategy s) {
    if (!s.uses(ON_DEMAND)) {
      return k.m * ringPool(k.remotePeers) + perProcessBufferState(k);
    }
    if (!s.uses(DC_TRANSPORT)) {
      return k.activeRemote * ring() + k.m * ALLOC_HEADER.value() + perProcessBufferState(k);
    }
    long rings = 0;
    if (s.uses(SWITCHING)) {
      rings = s.uses(NODE_SHARING) ? ringPool(NODE_RINGS.value()) : k.m * ringPool(NODE_RINGS.value());
    }
    return dcReceivePool() + rings + perProcessBufferState(k);
  }

  /** Eq. (3); on demand: an RC QP per active remote context; DC and hybrid: eq. (10). */
  private static long lowLevel(Counts k, Strategy s) {
    if (!s.uses(ON_DEMAND)) {
      return k.m * (RC_CQ_PAIR.value() + RC_QP.value() * k.remotePeers + table(k.n, POINTER.value()));
    }
    if (!s.uses(DC_TRANSPORT)) {
      return k.m * (RC_CQ_PAIR.value() + table(k.n, POINTER.value())) + RC_QP.value() * k.activeRemote;
    }
    long dataDc = DC_DATA_QP_PAIR.value() + hashedList(k.gamma, k.activeRemote, DC_ADDRESS.value())
        + (DC_HEADER.value() + POINTER.value()) * k.activeRemote;
    long creditDc = DC_CREDIT_QP.value() + controlReceiveBuffers()
        + hashedList(k.gamma, k.activeRemote, DC_ADDRESS.value());
    // The address of every process's context-setup (switching) DC QP, to open a context on demand.
    long setupAddresses = table(k.n, DC_ADDRESS.value());
    long rc = 0;
    if (s.uses(SWITCHING)) {
      long cap = RC_QP_CAP.value();
      rc = RC_CQ_PAIR.value() + RC_QP.value() * Math.min(cap, k.activeRemote) + hashedList(cap, cap, POINTER.value());
    }
    return dataDc + creditDc + setupAddresses + rc;
  }

  /** Eq. (2); on demand: eq. (9), γ VCs and BoCs per node and one rank table. */
  private static long highLevel(Counts k, Strategy s) {
    long contexts = s.uses(ON_DEMAND) ? k.active : k.n;
    long perSet = VC.value() * contexts + ALLOC_HEADER.value() + VC_HEADER.value() * Math.max(0, contexts - 1)
        + BOC.value() * contexts + table(k.n, POINTER.value());
    return s.uses(ON_DEMAND) ? perSet : k.m * perSet;
  }

  /** Eq. (13): traffic history (capped at 64 MiB), selection lists, switching DC QP, per process. */
  private static long switching(Counts k) {
    long history = HISTORY_COUNTER.value() * HISTORY_WINDOWS.value() * Math.min(k.n, HISTORY_FULL_PROCESSES.value());
    long select = SELECT_TABLES.value()
        * hashedList(SELECT_ENTRIES.value(), SELECT_ENTRIES.value(), SELECT_VALUE.value());
    return k.m * (history + select + table(k.n, POINTER.value()) + SWITCH_QP.value() + controlReceiveBuffers());
  }

  /** Eq. (1). */
  private static long communicators(Counts k) {
    long perRank = k.n * ((COMM_RANK_TABLES.value() * k.c + WORLD_RANK_TABLES.value()) * k.m
        + COMM_NODE_RANK_TABLES.value() * k.c) + NODE_ROOTS_TABLES.value() * k.nodes;
    return perRank + (COMM_PER_LOCAL_PAIR.value() * k.c + WORLD_PER_LOCAL_PAIR.value()) * k.m * k.m
        + (COMM_PER_PROCESS.value() * k.c + WORLD_PER_PROCESS.value()) * k.m
        + COMM_PER_NODE.value() * k.c + WORLD_PER_NODE.value();
  }

  /** Eq. (8): node-shared rank tables and VC lookup by hashed lists of γ buckets. */
  private static long communicatorsHashed(Counts k) {
    long shared = (COMM_SHARED_RANK_TABLES.value() * k.c + WORLD_SHARED_RANK_TABLES.value()) * k.n;
    long perProcess = (COMM_HASHED_PER_GAMMA.value() * k.gamma + COMM_HASHED_PER_PROCESS.value()) * k.c
        + WORLD_HASHED_PER_GAMMA.value() * k.gamma + WORLD_HASHED_PER_PROCESS.value();
    long perNode = (COMM_NODE_HASHED.value() + COMM_NODE_PER_GAMMA.value() * k.gamma) * k.c
        + WORLD_NODE_PER_GAMMA.value() * k.gamma + WORLD_NODE_HASHED.value();
    return shared + perProcess * k.m + perNode;
  }

  /** Eq. (5), or eq. (14) with the local-rank lookups as m-entry tables and hashed lists. */
  private static long sharedMemory(Counts k, boolean hashed) {
    long perRank = hashed ? SHM_RANK_TABLES_HASHED.value() : SHM_RANK_TABLES.value();
    long perPair = hashed ? SHM_PER_LOCAL_PAIR_HASHED.value() : SHM_PER_LOCAL_PAIR.value();
    return perRank * k.m * k.n + perPair * k.m * k.m + SHM_PER_PROCESS.value() * k.m + SHM_PER_NODE.value();
  }

  /** Eq. (6): every pair at the root in a fixed-size slot, and in the leaves' caches. */
  private static long kvsAtRoot(Counts k) {
    long pairs = KVS_KEYS_PER_PROCESS.value() * k.n + KVS_KEYS_PER_NODE.value() * k.nodes;
    return PMI_PROXY.value() + PMI_FIXED.value() + (KVS_SLOT.value() + KVS_PAIR.value() + KVS_LINK.value()) * pairs;
  }

  /** Eq. (15): a node holds the pairs hashed to it (its own share), each at its own size. */
  private static long kvsByHash(Counts k) {
    long pairs = KVS_KEYS_PER_PROCESS_HASHED.value() * k.m + KVS_KEYS_PER_NODE.value();
    return PMI_PROXY.value() + PMI_FIXED.value() + (KVS_PAIR.value() + KVS_LINK.value()) * pairs;
  }
}
