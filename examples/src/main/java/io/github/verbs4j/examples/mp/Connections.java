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
import io.github.verbs4j.verbs.RecvWr;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * one CQ (with a completion channel to block on) for everything, a slab of registered send and
 * receive slots, and one RC queue pair to every other rank, connected through the job's key-value
 * store (each rank publishes its LID, PSN, MTU, read depth and QP numbers, reads everyone's, and
 * brings its QPs to RTS), with every receive slot posted.
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
  /** Communicators created per job so far: every rank numbers its communicators alike. */
  private static final Map<Job, AtomicInteger> INSTANCES = Collections.synchronizedMap(new WeakHashMap<>());

  final ProtectionDomain pd;
  final CompletionChannel channel;
  final CompletionQueue cq;
  final MemoryRegion slabMr;
  final ByteBuffer slab;
  /** Receive (and send) slots per peer. */
  final int slots;
  final int slotSize;
  /** Indexed by rank; null for this rank. */
  final Peer[] peers;
  private final RecvWr rwr = new RecvWr();

  /**
   * Creates the resources and connects every rank; every rank of the job must call this, in the
   * same order as for its other communicators. On failure what was created is closed again.
   */
  Connections(Context ctx, Job job, MpConfig config) {
    int n = job.size();
    int rank = job.rank();
    DeviceAttr dev = ctx.queryDevice();
    int others = Math.max(1, n - 1);
    int s = Math.min(config.slots(), dev.maxQpWr() - RDMA_IN_FLIGHT);
    s = Math.min(s, ((dev.maxCqe() - 1) / others - RDMA_IN_FLIGHT) / 2);
    if (s < 2 * MpConfig.RESERVED_SLOTS) {
      throw new IllegalStateException("device limits max_cqe=" + dev.maxCqe() + ", max_qp_wr=" + dev.maxQpWr()
          + " leave fewer than " + 2 * MpConfig.RESERVED_SLOTS + " slots per peer for " + n + " ranks");
    }
    this.slots = s;
    this.slotSize = (Wire.HEADER_LENGTH + config.eagerLimit() + 63) / 64 * 64;
    List<AutoCloseable> created = new ArrayList<>();
    try {
      pd = ctx.allocPd();
      created.add(pd);
      channel = ctx.createCompletionChannel();
      created.add(channel);
      cq = ctx.createCq(Math.max(1, others * (2 * s + RDMA_IN_FLIGHT)), channel, 0);
      created.add(cq);
      slabMr = pd.allocateMemory(Math.max(64L, (long) (n - 1) * 2 * s * slotSize), EnumSet.of(Access.LOCAL_WRITE));
      created.add(slabMr);
      slab = slabMr.buffer().order(ByteOrder.LITTLE_ENDIAN);
      peers = new Peer[n];
      int outReads = Math.max(1, Math.min(16, Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom())));
      QpCap cap = QpCap.builder().maxSendWr(s + RDMA_IN_FLIGHT).maxRecvWr(s).build();
      int index = 0;
      for (int r = 0; r < n; r++) {
        if (r == rank) {
          continue;
        }
        QueuePair qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).cap(cap).build());
        created.add(qp);
        Peer p = new Peer(r, qp, index * 2 * s * slotSize, (index * 2 + 1) * s * slotSize);
        index++;
        for (int slot = 0; slot < s; slot++) {
          p.freeSendSlots.add(slot);
        }
        p.credits = s - MpConfig.RESERVED_SLOTS;
        peers[r] = p;
        RcConnector.toInit(qp);
        for (int slot = 0; slot < s; slot++) {
          postRecvSlot(p, slot);
        }
      }
      int id = INSTANCES.computeIfAbsent(job, j -> new AtomicInteger()).getAndIncrement();
      connect(ctx, new JobChannel(job, "mp/" + id, config.timeout()), rank, outReads);
    } catch (RuntimeException e) {
      for (int i = created.size() - 1; i >= 0; i--) {
        try {
          created.get(i).close();
        } catch (Exception c) {
          e.addSuppressed(c);
        }
      }
      throw e;
    }
  }

  /** Publishes this rank's LID, PSN and QP numbers, reads everyone's, and brings every QP to RTS. */
  private void connect(Context ctx, JobChannel ch, int rank, int outReads) {
    int n = peers.length;
    int lid = ctx.queryPort(1).lid();
    int mtu = ctx.queryPort(1).activeMtu().bytes();
    int psn = ThreadLocalRandom.current().nextInt(1 << 24);
    StringBuilder qpns = new StringBuilder();
    for (int r = 0; r < n; r++) {
      qpns.append(r == 0 ? "" : ":").append(peers[r] == null ? 0 : peers[r].qp.qpNum());
    }
    ch.publish("conn", lid + ";" + psn + ";" + mtu + ";" + outReads + ";" + qpns);
    for (int r = 0; r < n; r++) {
      if (peers[r] == null) {
        continue;
      }
      String[] f = ch.lookup("conn", r).split(";");
      int[] theirQpns = Arrays.stream(f[4].split(":")).mapToInt(Integer::parseInt).toArray();
      RcAddress remote = new RcAddress(Integer.parseInt(f[0]), theirQpns[rank], Integer.parseInt(f[1]), 0, 0,
          Integer.parseInt(f[3]), Integer.parseInt(f[2]));
      RcAddress local = new RcAddress(lid, peers[r].qp.qpNum(), psn, 0, 0, outReads, mtu);
      RcConnector.connect(peers[r].qp, local, remote, Math.min(outReads, remote.outReads()), outReads, QP_TIMEOUT);
    }
    ch.barrier();
  }

  /** @return the wr_id of a work request: its kind, the peer's rank and a slot or request id */
  static long wrId(int kind, int peer, int index) {
    return (long) kind << 56 | (long) peer << 32 | (index & 0xffffffffL);
  }

  /** Posts receive slot {@code slot} of peer {@code p} (again). */
  void postRecvSlot(Peer p, int slot) {
    rwr.wrId(wrId(WR_RECV, p.rank, slot)).sge(slabMr, p.recvBase + (long) slot * slotSize, slotSize);
    p.qp.postRecv(rwr);
  }

  /** @return the QPs, to be closed first */
  List<AutoCloseable> queuePairs() {
    List<AutoCloseable> l = new ArrayList<>();
    for (Peer p : peers) {
      if (p != null) {
        l.add(p.qp);
      }
    }
    return l;
  }

  /**
   * @param wait the waiter on the CQ, whose queued events are acknowledged before the CQ goes
   * @return the rest, in closing order, after the QPs and anything else allocated from the PD
   */
  List<AutoCloseable> afterQueuePairs(CompletionWait wait) {
    return List.of(slabMr, wait::ackQueuedEvents, cq, channel, pd);
  }
}
