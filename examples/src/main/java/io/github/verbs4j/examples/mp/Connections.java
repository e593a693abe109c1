package io.github.verbs4j.examples.mp;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.common.RcAddress;
import io.github.verbs4j.examples.common.RcConnector;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The verbs resources of a {@link VerbsCommunicator} and how they are wired: a protection domain,
 * one CQ (with a completion channel to block on) for everything, and per connected peer a {@link
 * Link}: an RC queue pair and its own registered eager ring with every receive slot posted.
 *
 * <p>{@link MpConfig.Strategy#BASELINE}: a link to every other rank, connected at start through the
 * job's key-value store (each rank publishes its LID, PSN, MTU, read depth and QP numbers, reads
 * everyone's, and brings its QPs to RTS). {@link MpConfig.Strategy#ON_DEMAND}: links are opened and
 * closed by the {@link ConnectionManager}; the CQ is sized for at most 2γ of them.
 */
final class Connections {
  /** RDMA operations one QP keeps posted at a time. */
  static final int RDMA_IN_FLIGHT = 8;
  /**
   * Local ACK timeout code of the ranks' QPs: 4.096 µs × 2^20 ≈ 4.3 s (Open MPI's openib default),
   * not perftest's 67 ms. With retry count 7 a peer is declared lost after ~34 s without an ACK
   * instead of ~0.5 s: four rank JVMs on two vCPUs under a build stalled that long now and then
   * (RETRY_EXC_ERR in the four-rank Himeno test).
   */
  static final int QP_TIMEOUT = 20;
  static final int WR_RECV = 1;
  static final int WR_SEND = 2;
  static final int WR_RDMA = 3;
  static final int WR_CONTROL_RECV = 4;
  static final int WR_CONTROL_SEND = 5;
  static final int WR_SHARED_RECV = 6;
  /** Ranks a wr_id can name (16 bits). */
  static final int MAX_RANKS = 1 << 16;
  /** Communicators created per job so far: every rank numbers its communicators alike. */
  private static final Map<Job, AtomicInteger> INSTANCES = Collections.synchronizedMap(new WeakHashMap<>());

  final Context ctx;
  final ProtectionDomain pd;
  final CompletionChannel channel;
  final CompletionQueue cq;
  /** Receive (and send) slots per link. */
  final int slots;
  final int slotSize;
  /** The records of the ranks talked to (every other rank for the baseline), hashed by rank. */
  final PeerTable peers;
  /** The job-wide name of this communicator's keys. */
  final JobChannel channelKvs;
  final int lid;
  final int mtu;
  final int outReads;
  final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
  /** Links that may be open at once: every other rank, or 2γ on demand. */
  final int maxLinks;
  /** The shared receive queue and its buffers ({@link MpConfig#sharedReceive()}), else null. */
  final SharedReceiveQueue srq;
  final MemoryRegion poolMr;
  final ByteBuffer pool;
  /** Buffers in the pool (0 without one). */
  final int poolBuffers;
  /**
   * DC: the initiators ({@link MpConfig#dcInitiators()}; a peer always uses dcis[rank % their
   * number], which keeps its messages in order), the target.
   */
  final QueuePair[] dcis;
  final QueuePair dct;
  /** DC: send WRs one DCI may have outstanding. */
  final int dciDepth;
  /**
   * DC: the send pool every peer's messages are built in (seed 003 §3.3's DC channel; sized by
   * {@link #DC_SEND_BUFFERS}), and its free slots; null otherwise.
   */
  final MemoryRegion sendPoolMr;
  final ByteBuffer sendPool;
  final ArrayDeque<Integer> sendPoolFree;
  /**
   * DC: slots in the send pool: seed 003 §2.3.4 holds 327,680 B of send staging per process until
   * the HCA's DMA completes, 80 slots of 4 KiB.
   */
  static final int DC_SEND_BUFFERS = 80;
  /** The DC target's access key. */
  static final long DC_KEY = 0x6d7064634b6579L;
  /** The layer's share of the memory meters. */
  final MpMemory memory;
  /** The links' eager rings and their spares. */
  final RingPool rings;
  /**
   * {@link MpConfig.Strategy#HYBRID} and {@link MpConfig.Strategy#SHARED}: DC resources, and RC links
   * (own receive rings, no SRQ) for up to maxLinks sources.
   */
  final boolean hybrid;
  /** {@link MpConfig.Strategy#SHARED}: the node's rings and RC links, shared with its other ranks; else null. */
  NodeRings nodeRings;
  private final QpCap cap;
  private final RecvWr rwr = new RecvWr();
  private final List<AutoCloseable> created = new ArrayList<>();

  /**
   * Creates the shared resources and, for the baseline, every link, connected; every rank of the
   * job must call this, in the same order as for its other communicators. On failure what was
   * created is closed again.
   */
  Connections(Context ctx, Job job, MpConfig config) {
    this.ctx = ctx;
    int n = job.size();
    if (n > MAX_RANKS) {
      throw new IllegalArgumentException("job size " + n + " exceeds the " + MAX_RANKS + " ranks a wr_id can name");
    }
    DeviceAttr dev = ctx.queryDevice();
    int others = Math.max(1, n - 1);
    boolean onDemand = config.strategy() == MpConfig.Strategy.ON_DEMAND;
    this.hybrid = config.strategy().switches();
    boolean dc = config.strategy() == MpConfig.Strategy.DC || hybrid;
    if (dc && !dev.has(io.github.verbs4j.verbs.Capability.DC)) {
      throw new IllegalStateException("strategy " + config.strategy() + " needs a device with the DC capability; "
          + ctx.device().name() + " has none");
    }
    this.maxLinks = onDemand ? Math.min(others, 2 * config.gamma())
        : hybrid ? Math.min(others, config.hybrid().rcLinks()) : dc ? 0 : others;
    this.dciDepth = dc ? Math.min(1024, dev.maxQpWr()) : 0;
    int s = Math.min(config.slots(), dev.maxQpWr() - RDMA_IN_FLIGHT);
    boolean shared = config.sharedReceive() > 0 || dc;
    if (shared && (dev.maxSrq() < 1 || dev.maxSrqWr() < 2 * MpConfig.RESERVED_SLOTS)) {
      throw new IllegalStateException("shared receive buffers need an SRQ; the device has max_srq=" + dev.maxSrq()
          + ", max_srq_wr=" + dev.maxSrqWr());
    }
    this.poolBuffers = shared ? Math.min(config.sharedReceive() > 0 ? config.sharedReceive()
        : MpConfig.DEFAULT_DC_POOL, dev.maxSrqWr()) : 0;
    int control = (onDemand ? ConnectionManager.CONTROL_CQES : 0) + poolBuffers + (dc ? config.dcInitiators() : 0) * dciDepth;
    if (maxLinks > 0) {
      s = Math.min(s, ((dev.maxCqe() - 1 - control) / maxLinks - RDMA_IN_FLIGHT) / (shared && !hybrid ? 1 : 2));
    }
    if (s < 2 * MpConfig.RESERVED_SLOTS) {
      throw new IllegalStateException("device limits max_cqe=" + dev.maxCqe() + ", max_qp_wr=" + dev.maxQpWr()
          + " leave fewer than " + 2 * MpConfig.RESERVED_SLOTS + " slots per peer for " + maxLinks + " links");
    }
    this.slots = s;
    this.slotSize = (Wire.HEADER_LENGTH + config.eagerLimit() + 63) / 64 * 64;
    this.lid = ctx.queryPort(1).lid();
    this.mtu = ctx.queryPort(1).activeMtu().bytes();
    this.outReads = Math.max(1, Math.min(16, Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom())));
    boolean ownRecv = !shared || hybrid; // a hybrid's RC links have their own receive ring
    this.cap = QpCap.builder().maxSendWr(s + RDMA_IN_FLIGHT).maxRecvWr(ownRecv ? s : 0).maxRecvSge(ownRecv ? 1 : 0)
        .build();
    int id = INSTANCES.computeIfAbsent(job, j -> new AtomicInteger()).getAndIncrement();
    this.channelKvs = new JobChannel(job, "mp/" + id, config.timeout());
    this.peers = new PeerTable(n);
    this.memory = new MpMemory(ctx);
    memory.add(peers, MemoryComponent.MP_PEERS, peers.bytes());
    int ppn = config.hybrid().ppn();
    boolean nodeLeader = job.rank() % ppn == 0;
    try {
      // first, so that it closes last, after every memory region over its rings
      nodeRings = config.strategy() == MpConfig.Strategy.SHARED && nodeLeader
          ? add(NodeRings.create(channelKvs, job.rank(), ppn, nodeRingCount(config), (long) s * slotSize,
              config.hybrid().rcLinks())) : null;
      pd = add(ctx.allocPd());
      rings = add(new RingPool(pd, memory, (long) (ownRecv ? 2 : 1) * s * slotSize,
          onDemand ? RingPool.maxSpares(config.gamma()) : 0));
      channel = add(ctx.createCompletionChannel());
      cq = add(ctx.createCq(Math.max(1, maxLinks * ((ownRecv ? 2 : 1) * s + RDMA_IN_FLIGHT) + control), channel, 0));
      if (shared) {
        srq = add(pd.createSrq(SrqAttr.of(poolBuffers, 1)));
        poolMr = add(pd.allocateMemory((long) poolBuffers * slotSize, EnumSet.of(Access.LOCAL_WRITE)));
        pool = poolMr.buffer().order(ByteOrder.LITTLE_ENDIAN);
        memory.add(pool, MemoryComponent.MP_BUFFERS, poolMr.length());
        for (int b = 0; b < poolBuffers; b++) {
          postShared(b);
        }
      } else {
        srq = null;
        poolMr = null;
        pool = null;
      }
      if (dc) {
        sendPoolMr = add(pd.allocateMemory((long) DC_SEND_BUFFERS * slotSize, EnumSet.of(Access.LOCAL_WRITE)));
        sendPool = sendPoolMr.buffer().order(ByteOrder.LITTLE_ENDIAN);
        sendPoolFree = new ArrayDeque<>(DC_SEND_BUFFERS);
        for (int b = 0; b < DC_SEND_BUFFERS; b++) {
          sendPoolFree.add(b);
        }
        memory.add(sendPool, MemoryComponent.MP_BUFFERS, sendPoolMr.length());
        dcis = new QueuePair[config.dcInitiators()];
        QpCap dciCap = QpCap.builder().maxSendWr(dciDepth).maxRecvWr(0).maxSendSge(1).maxRecvSge(0).build();
        for (int i = 0; i < dcis.length; i++) {
          dcis[i] = add(pd.createQp(QpInitAttr.builder(QpType.DCI).sendCq(cq).cap(dciCap).build()));
          dcis[i].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1));
          dcis[i].modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.ofBytes(mtu)));
          dcis[i].modify(new QpAttr().qpState(QpState.RTS).timeout(QP_TIMEOUT).retryCnt(RcConnector.RETRY_CNT)
              .rnrRetry(RcConnector.RNR_RETRY).maxRdAtomic(outReads).sqPsn(psn));
        }
        dct = add(pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(cq).srq(srq)
            .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(DC_KEY).build()));
        dct.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
            .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
        dct.modify(new QpAttr().qpState(QpState.RTR).minRnrTimer(RcConnector.MIN_RNR_TIMER).ahAttr(AhAttr.lid(lid))
            .pathMtu(Mtu.ofBytes(mtu)));
        channelKvs.publish("dc", lid + ";" + dct.qpNum());
        channelKvs.barrier();
        if (config.strategy() == MpConfig.Strategy.SHARED) {
          joinNode(job.rank(), config);
        }
      } else {
        sendPoolMr = null;
        sendPool = null;
        sendPoolFree = null;
        dcis = null;
        dct = null;
      }
      if (!onDemand && !dc) {
        for (int r = 0; r < n; r++) {
          if (r != job.rank()) {
            Peer p = newPeer(r);
            p.link = openLink(p);
          }
        }
        connectAll(job.rank());
      }
    } catch (RuntimeException e) {
      closeCreated(e);
      throw e;
    }
  }

  /** Seed 003 §3.4: the node's rings for sources on DC RDMA, {@value HybridSwitch#RINGS} less its RC links. */
  static int nodeRingCount(MpConfig config) {
    return Math.max(0, HybridSwitch.RINGS - config.hybrid().rcLinks());
  }

  /**
   * {@link MpConfig.Strategy#SHARED}, after the barrier that follows the node's first rank publishing
   * its file: the other ranks map it; once all have, the first removes its name and counts its bytes.
   */
  private void joinNode(int rank, MpConfig config) {
    int ppn = config.hybrid().ppn();
    if (nodeRings == null) {
      nodeRings = add(NodeRings.join(channelKvs, rank, ppn, nodeRingCount(config), (long) slots * slotSize,
          config.hybrid().rcLinks()));
    }
    channelKvs.barrier();
    if (nodeRings.leader(rank)) {
      nodeRings.unlink();
      memory.add(nodeRings, MemoryComponent.MP_BUFFERS, nodeRings.bytes());
    }
  }

  /** Creates and counts the record of peer {@code r}. */
  Peer newPeer(int r) {
    Peer p = new Peer(r);
    peers.add(p);
    memory.add(p, MemoryComponent.MP_PEERS, MpMemory.PEER_BYTES);
    memory.add(peers, MemoryComponent.MP_PEERS, peers.bytes());
    return p;
  }

  private <T extends AutoCloseable> T add(T c) {
    created.add(c);
    return c;
  }

  /** Closes the shared resources after a failure ({@code e} collects what fails to close). */
  void closeShared(RuntimeException e) {
    closeCreated(e);
  }

  private void closeCreated(RuntimeException e) {
    for (Peer p : peers) {
      if (p != null && p.link != null) {
        closeLink(p.link, e);
      }
      if (p != null && p.dcLink != null && p.dcLink != p.link) {
        closeLink(p.dcLink, e);
      }
      if (p != null && p.inRingMr != null) {
        closeAll(List.of(p.inRingMr), e);
      }
    }
    memory.releaseAll();
    for (int i = created.size() - 1; i >= 0; i--) {
      try {
        created.get(i).close();
      } catch (Exception c) {
        e.addSuppressed(c);
      }
    }
  }

  /**
   * Creates a link to {@code p} for its current epoch: the QP (in INIT) and the ring, with every
   * receive slot posted and every send slot free.
   */
  Link openLink(Peer p) {
    SharedReceiveQueue linkSrq = hybrid ? null : srq;
    int recvSlots = linkSrq == null ? slots : 0;
    RingPool.Ring ring = rings.take();
    QueuePair qp;
    try {
      qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).srq(linkSrq).cap(cap).build());
    } catch (RuntimeException e) {
      rings.give(ring, true);
      throw e;
    }
    ArrayDeque<Integer> free = new ArrayDeque<>(slots);
    for (int slot = 0; slot < slots; slot++) {
      free.add(slot);
    }
    Link l = new Link(p.rank, p.epoch, qp, ring.mr(), ring.view(), recvSlots * slotSize, free, slots);
    memory.link(l, slots);
    try {
      l.credits = slots - MpConfig.RESERVED_SLOTS;
      RcConnector.toInit(qp);
      for (int slot = 0; slot < recvSlots; slot++) {
        postRecvSlot(l, slot);
      }
    } catch (RuntimeException e) {
      closeLink(l, e);
      throw e;
    }
    return l;
  }

  /** Brings a link's QP to RTS against the peer's published address. */
  void connectLink(Link l, int remoteLid, int remoteQpn, int remotePsn, int remoteOutReads, int remoteMtu) {
    RcAddress remote = new RcAddress(remoteLid, remoteQpn, remotePsn, 0, 0, remoteOutReads, remoteMtu);
    RcAddress local = new RcAddress(lid, l.qp.qpNum(), psn, 0, 0, outReads, mtu);
    RcConnector.connect(l.qp, local, remote, Math.min(outReads, remoteOutReads), outReads, QP_TIMEOUT);
  }

  /**
   * Closes each of {@code all}, collecting failures.
   *
   * @return {@code failure}, or the first failure when it was null, with the others suppressed
   */
  static RuntimeException closeAll(List<AutoCloseable> all, RuntimeException failure) {
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception e) {
        RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        if (failure == null) {
          failure = r;
        } else {
          failure.addSuppressed(r);
        }
      }
    }
    return failure;
  }

  /**
   * Hybrid, DC RDMA: a ring of {@link #slots} receive slots that peer {@code p} writes its messages
   * into with RDMA WRITE with immediate over its DCI (seed 003 §3.3, §3.4): made for it, or under
   * {@link MpConfig.Strategy#SHARED} the node's next free ring, registered by this rank.
   *
   * @return false if the node's ranks hold all its rings
   */
  boolean openRing(Peer p) {
    if (nodeRings != null) {
      ByteBuffer ring = nodeRings.takeRing();
      if (ring == null) {
        return false;
      }
      p.inRingMr = pd.registerMemory(ring, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
      p.inRing = ring;
      return true;
    }
    p.inRingMr = pd.allocateMemory((long) slots * slotSize, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
    p.inRing = p.inRingMr.buffer().order(ByteOrder.LITTLE_ENDIAN);
    memory.add(p.inRing, MemoryComponent.MP_BUFFERS, p.inRingMr.length());
    return true;
  }

  /**
   * Closes a link: destroys its QP, then gives its ring back to the pool (a spare only once the QP
   * is destroyed); a DC link closes its AH. Failures are added to {@code failure} (when not null),
   * else thrown after the rest is closed.
   */
  void closeLink(Link l, RuntimeException failure) {
    memory.linkClosed(l);
    RuntimeException first = null;
    boolean destroyed = false;
    try {
      if (l.dc()) {
        l.ah.close();
      } else {
        l.qp.close();
        destroyed = true;
      }
    } catch (RuntimeException e) {
      first = e;
    }
    if (!l.dc()) {
      try {
        rings.give(new RingPool.Ring(l.ringMr, l.ring), destroyed);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      if (failure == null) {
        throw first;
      }
      failure.addSuppressed(first);
    }
  }

  /**
   * DC: a peer's link is an address handle to its DC target (looked up in the key-value store) and
   * its credits; it sends on the rank's DCI for that peer from the shared send pool, so a peer costs
   * no buffers.
   */
  Link openDcLink(Peer p) {
    String[] f = channelKvs.lookup("dc", p.rank).split(";");
    Link l = new Link(p.rank, p.epoch, dcis[p.rank % dcis.length], sendPoolMr, sendPool, 0, sendPoolFree, DC_SEND_BUFFERS);
    l.ah = pd.createAh(AhAttr.lid(Integer.parseInt(f[0])));
    l.dctn = Integer.parseInt(f[1]);
    memory.link(l, slots);
    l.credits = slots - MpConfig.RESERVED_SLOTS;
    p.link = l;
    p.dcLink = l;
    p.state = Peer.State.OPEN;
    return l;
  }

  /** Baseline: publishes this rank's LID, PSN and QP numbers, reads everyone's, brings every QP to RTS. */
  private void connectAll(int rank) {
    int n = peers.ranks();
    StringBuilder qpns = new StringBuilder();
    for (int r = 0; r < n; r++) {
      Peer p = peers.get(r);
      qpns.append(r == 0 ? "" : ":").append(p == null ? 0 : p.link.qp.qpNum());
    }
    channelKvs.publish("conn", lid + ";" + psn + ";" + mtu + ";" + outReads + ";" + qpns);
    for (int r = 0; r < n; r++) {
      Peer p = peers.get(r);
      if (p == null) {
        continue;
      }
      String[] f = channelKvs.lookup("conn", r).split(";");
      int[] theirQpns = Arrays.stream(f[4].split(":")).mapToInt(Integer::parseInt).toArray();
      connectLink(p.link, Integer.parseInt(f[0]), theirQpns[rank], Integer.parseInt(f[1]), Integer.parseInt(f[3]),
          Integer.parseInt(f[2]));
      p.state = Peer.State.OPEN; // nothing arrives before every QP is at RTS: the barrier below
    }
    channelKvs.barrier();
  }

  /** @return the wr_id of a work request: its kind, the link's epoch, the peer's rank and a slot or request id */
  static long wrId(int kind, int epoch, int peer, int index) {
    return (long) kind << 56 | (long) (epoch & 0xff) << 48 | (long) peer << 32 | (index & 0xffffffffL);
  }

  /** Posts buffer {@code b} of the shared pool (again). */
  void postShared(int b) {
    rwr.wrId(wrId(WR_SHARED_RECV, 0, 0, b)).sge(poolMr, (long) b * slotSize, slotSize);
    srq.postRecv(rwr);
  }

  /** Posts receive slot {@code slot} of link {@code l} (again). */
  void postRecvSlot(Link l, int slot) {
    rwr.wrId(wrId(WR_RECV, l.epoch, l.peer, slot)).sge(l.ringMr, (long) slot * slotSize, slotSize);
    l.qp.postRecv(rwr);
  }

  /** @return the links' QPs and rings, to be closed first */
  List<AutoCloseable> links() {
    List<AutoCloseable> l = new ArrayList<>();
    for (Peer p : peers) {
      if (p != null && p.dcLink != null && p.dcLink != p.link) {
        l.add(p.dcLink.ah); // hybrid: the DC link the pair moved from
      }
      if (p != null && p.inRingMr != null) {
        l.add(p.inRingMr); // hybrid: the ring it writes into with DC RDMA
        p.inRingMr = null;
      }
      if (p != null) {
        p.dcLink = null;
      }
      if (p != null && p.link != null) {
        if (p.link.dc()) {
          l.add(p.link.ah); // the DCIs and the send pool are shared: they go with the rest
        } else {
          l.add(p.link.qp);
          l.add(p.link.ringMr);
        }
        p.link = null;
      }
    }
    return l;
  }

  /**
   * @param wait the waiter on the CQ, whose queued events are acknowledged before the CQ goes
   * @return the rest, in closing order, after the links and anything else allocated from the PD
   */
  List<AutoCloseable> afterLinks(CompletionWait wait) {
    List<AutoCloseable> l = new ArrayList<>();
    for (int i = created.size() - 1; i >= 0; i--) {
      if (created.get(i) == cq && wait != null) {
        // only now: until the DC target is gone a peer's last message may still complete and raise an event
        l.add(wait::ackQueuedEvents);
      }
      l.add(created.get(i)); // the DC target and initiators, the pools and SRQ, the CQ, the channel, the PD
    }
    return l;
  }
}
