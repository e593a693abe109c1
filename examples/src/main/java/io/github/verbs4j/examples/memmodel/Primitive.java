package io.github.verbs4j.examples.memmodel;

import io.github.verbs4j.verbs.spi.HcaFootprint;

/**
 * The named primitive sizes and counts the memory model is built from, each with its source. The
 * sizes are in-memory sizes: what the program defines plus ABI and allocator overhead, measured by
 * the paper (seed 003, §2.3) with MPICH 3.2b3 + LLC on Xeon E5-2670 v2 and Connect-IB; the counts are
 * the paper's set-up choices. One value ({@link #PAGE_SLACK}) is a stated assumption of this model.
 * Nothing here is fitted to a row of Table 1.
 *
 * <p>The paper measured whole objects (an RC QP with its queues is 31,152 B), not WQE and CQE sizes,
 * so the low-level rows use per-object sizes; {@link HcaFootprint} (the accounting of verbs4j's own
 * objects) shares its CQ size and predicts its RC QP from mlx5's WQE sizes. The rows whose per-object breakdown is only in the
 * paper's figure 2 (communicators) or in its constants (shared memory, process management, other)
 * use the coefficients of the paper's equations, named by what they multiply.
 */
public enum Primitive {
  // Conventions shared by every table and list (§2.3, §3.3).
  ALLOC_HEADER(16, "§2.3 (the +16 of every table, e.g. 8n+16)", "allocator overhead per allocated table or pool"),
  POINTER(8, "§2.3.2 (8n+16)", "one table entry holding a pointer or an 8-byte value"),
  HASH_BUCKET(8, "§3.3 (8γ of 8γ+(24+4+8)γ+16)", "bucket head of a hashed list"),
  HASH_KEY(4, "§3.3 (the 4 of (24+4+8)γ)", "rank key in a hashed-list node"),
  HASH_NEXT(8, "§3.3 (the 8 of (24+4+8)γ)", "next pointer in a hashed-list node"),

  // Communication buffer management (§2.3.4, §3.4).
  BUFFER_SLOT(4096, "§2.3.4, §3.4", "one eager-ring entry or one receive buffer (4 KB)"),
  RING_SLOTS(16, "§2.3.4", "entries per eager ring"),
  RING_STRUCT(1360, "§2.3.4 (1360(n-m)+16)", "ring-management struct per ring"),
  REG_CACHE(16_078_021, "§2.3.4, erratum (was 32156187)",
      "registration cache per process: ≤65,536 registrations × 128 B + 4-bit radix tree"),
  SEND_STAGING(327_680, "§2.3.4", "per process: packet-building memory held until the HCA's DMA completes"),
  DC_DATA_QPS(2, "§3.3", "data DC QPs per node"),
  DC_RECV_WRS(2048, "§3.3, §3.4", "receive WRs (each with a 4 KB buffer) posted per data DC QP"),
  PAGE_SLACK(4096, "assumption: one 4 KiB alignment page per page-aligned pool",
      "explains 16,785,408 = 2 × (2048 × 4096 + 4096) in §3.4"),
  NODE_RINGS(1024, "§3.4", "eager rings preallocated for RC/DC RDMA sources"),

  // Low-level communication contexts (§2.3.3, §3.3).
  RC_CQ_PAIR(2 * HcaFootprint.CQ_STRUCT, "§2.3.3 (672+31152(n-m)); HcaFootprint.CQ_STRUCT × 2",
      "receive and result CQ (4,096 entries each), shared by the RC QPs"),
  RC_QP(31_152, "§2.3.3", "one RC QP with RQ 272 and SQ 256 entries"),
  RC_QP_CAP(128, "§3.3", "RC QPs per node at most (hybrid)"),
  DC_DATA_QP_PAIR(243_520 + 164_624, "§3.3 (243520+164624)",
      "the 2 data DC QPs (RQ/SQ/recv CQ/result CQ/recv WRs 2048/512/40000/2048/2048)"),
  DC_CREDIT_QP(168_736, "§3.3", "the DC QP for credit flow control (same queue sizes)"),
  CONTROL_RECV_WRS(2048, "§3.3, §3.5", "receive WRs posted on a control (credit or switching) DC QP"),
  CONTROL_BUFFER(256, "§3.3, §3.5 (2048×256+16 = 524304)", "receive buffer per control WR"),
  DC_ADDRESS(24, "§3.3 (the 24 of (24+4+8)γ; 24n+16)", "network address of a DC target"),
  DC_HEADER(72, "§3.3 ((72+8)γ)", "packet header cached per destination DC QP"),

  // High-level communication contexts (§2.3.2, §3.2).
  VC(480, "§2.3.2 (480n+16)", "MPIDI_VC_t, one per peer"),
  VC_HEADER(64, "§2.3.2 (64(n-1))", "packet-header stash per VC"),
  BOC(396, "§2.3.2 (396n)", "LLC_channels_t (bundle of channels), one per peer"),

  // Dynamic switching of method and buffers (§3.5).
  HISTORY_COUNTER(8, "§3.5", "64-bit receive count per source rank per time window"),
  HISTORY_WINDOWS(1024, "§3.5 eq. (12)", "time windows kept while p ≤ 2^13"),
  HISTORY_FULL_PROCESSES(8192, "§3.5 eq. (12)-(13)", "beyond 2^13 processes the history stays at 64 MiB"),
  SELECT_TABLES(3 + 13, "§3.5 ((…)×(3+13))", "temporary hashed lists used to choose the methods"),
  SELECT_ENTRIES(1024, "§3.5", "buckets and entries per selection list"),
  SELECT_VALUE(4, "§3.5 ((4+4+8)×1024)", "value per selection-list entry"),
  SWITCH_QP(165_008, "§3.5", "per process: the switching DC QP (2048/512/2048/512/2048)"),

  // Communicator (participant set) management: the coefficients of eq. (1) and eq. (8); the
  // per-object sizes behind them are in the paper's figure 2.
  COMM_RANK_TABLES(16, "eq. (1) (16c·m·n)", "per user communicator, per process, per rank"),
  WORLD_RANK_TABLES(32, "eq. (1) (32·m·n)", "COMM_WORLD and ICOMM_WORLD, per process, per rank"),
  COMM_NODE_RANK_TABLES(8, "eq. (1) (8c·n)", "per user communicator, per node, per rank"),
  NODE_ROOTS_TABLES(16, "eq. (1) (16n/m)", "node_roots_comm tables, per node in the job"),
  COMM_PER_LOCAL_PAIR(8, "eq. (1) ((8c+16)m²)", "per user communicator, per pair of local processes"),
  WORLD_PER_LOCAL_PAIR(16, "eq. (1)", "world communicators, per pair of local processes"),
  COMM_PER_PROCESS(848, "eq. (1) ((848c+2256)m)", "per user communicator, per process"),
  WORLD_PER_PROCESS(2256, "eq. (1)", "world communicators, per process"),
  COMM_PER_NODE(408, "eq. (1) (408c+816)", "per user communicator, per node"),
  WORLD_PER_NODE(816, "eq. (1)", "world communicators, per node"),
  COMM_SHARED_RANK_TABLES(4, "eq. (8) ((4c+8)n)", "per user communicator, node-shared, per rank"),
  WORLD_SHARED_RANK_TABLES(8, "eq. (8)", "world communicators, node-shared, per rank"),
  COMM_HASHED_PER_GAMMA(40, "eq. (8) ((40γ+856)c·m)", "per user communicator, per process, per γ bucket"),
  COMM_HASHED_PER_PROCESS(856, "eq. (8)", "per user communicator, per process"),
  WORLD_HASHED_PER_GAMMA(104, "eq. (8) ((104γ+2208)m)", "world communicators, per process, per γ bucket"),
  WORLD_HASHED_PER_PROCESS(2208, "eq. (8)", "world communicators, per process"),
  COMM_NODE_PER_GAMMA(20, "eq. (8) ((448+20γ)c)", "per user communicator, per node, per γ bucket"),
  COMM_NODE_HASHED(448, "eq. (8)", "per user communicator, per node"),
  WORLD_NODE_PER_GAMMA(40, "eq. (8) (40γ+960)", "world communicators, per node, per γ bucket"),
  WORLD_NODE_HASHED(960, "eq. (8)", "world communicators, per node"),

  // Shared-memory communication (§2.3.5, §3.6).
  SHM_RANK_TABLES(4 + 4 + 4 + 8 + 8 + 2, "§2.3.5 (4n+4n+4(n-m)+8n+8n+2n)",
      "per process, per rank: local index↔rank, off-node index, receive-queue and free-list pointers, sequence"),
  SHM_RANK_TABLES_HASHED(4 + 2, "§3.6 eq. (14) (6mn)", "per process, per rank: off-node index and sequence number"),
  SHM_PER_LOCAL_PAIR(65_716, "eq. (5) (65716m²)", "per pair of local processes (queues, pools)"),
  SHM_PER_LOCAL_PAIR_HASHED(65_756, "eq. (14) (65756m²)", "the same after §3.6"),
  SHM_PER_PROCESS(4_129_094, "eq. (5), (14)", "per process (receive queue, event queue, buffer pool)"),
  SHM_PER_NODE(2256, "eq. (5), (14)", "per node"),

  // Process management (§2.3.6, §3.7).
  PMI_PROXY(179_384, "eq. (6), (15)", "hydra_pmi_proxy and its fixed state, per node"),
  PMI_FIXED(32_272, "eq. (6), (15)", "other fixed KVS state, per node"),
  KVS_KEYS_PER_PROCESS(14, "eq. (6) (14n)", "key-value pairs each process puts"),
  KVS_KEYS_PER_NODE(2, "eq. (6) (2n/m)", "key-value pairs put per node"),
  KVS_KEYS_PER_PROCESS_HASHED(13, "eq. (15) (13m+2)", "pairs per process once the ring's RC address is gone"),
  KVS_SLOT(1096, "eq. (6)", "fixed-size (maximum-length) slot per pair at the root"),
  KVS_PAIR(64, "§3.7", "a pair stored at its own size (measured)"),
  KVS_LINK(8, "eq. (6), (15) ((64+8))", "list link per stored pair"),

  // Other: allocation-log and section sizes that no function claims (§2.3.7).
  OTHER_PER_PROCESS(65_540, "eq. (7)", "unclassified, per process"),
  OTHER_PER_NODE(13_067_907, "eq. (7)", "unclassified, per node (text and data sections, ...)"),
  OTHER_ERRATUM(39_969_933, "erratum, Table 1 row 9: 13.3 MB -> 53.3 MB, eq. (7) unchanged",
      "unclassified, per node, that the erratum adds: 53.3 MB less eq. (7) at m = 4, held constant");

  private final long value;
  private final String source;
  private final String meaning;

  Primitive(long value, String source, String meaning) {
    this.value = value;
    this.source = source;
    this.meaning = meaning;
  }

  /**
   * @return the size in bytes, or the count
   */
  public long value() {
    return value;
  }

  /**
   * @return where the value comes from: a section or equation of seed 003, or "assumption: …"
   */
  public String source() {
    return source;
  }

  /**
   * @return what the value is
   */
  public String meaning() {
    return meaning;
  }
}
