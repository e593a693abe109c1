package io.github.verbs4j.examples.testing;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.AbstractQueuePair;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test double of a verbs provider: RC queue pairs between contexts of one JVM, executed
 * synchronously under one lock when posted. A SEND that finds no receive waits (as an RNR retry
 * would) until the target posts one. Remote keys, bounds and access are checked through the SPI's
 * {@link SoftMemoryRegion}; a bad key completes with REM_ACCESS_ERR and moves the QP to ERR. It
 * lets the examples' verbs code (message passing, perftest loops) be tested without a simulated
 * HCA; the real providers are tested by their own modules and the conformance kit.
 *
 * <pre>{@code
 * Loopback fabric = new Loopback(2);
 * Context rank0 = fabric.open(0);   // one per rank, each used by its own thread
 * }</pre>
 */
public final class Loopback {
  private static final AtomicInteger QPNS = new AtomicInteger(0x100);
  private final int size;
  private final Object lock = new Object();
  private final Map<Integer, Ctx> byLid = new HashMap<>();
  private final Map<Integer, Qp> byQpn = new HashMap<>();
  private final Map<String, byte[]> kv = new HashMap<>();
  private final Map<String, Set<Integer>> barriers = new HashMap<>();
  private final List<Qp> blocked = new ArrayList<>();

  /** @param size the job size */
  public Loopback(int size) {
    this.size = size;
  }

  /**
   * @param rank the rank
   * @return a context for it (LID rank + 1)
   */
  public Context open(int rank) {
    Ctx c = new Ctx(rank);
    synchronized (lock) {
      byLid.put(rank + 1, c);
    }
    return c;
  }

  private static DeviceAttr attr() {
    return DeviceAttr.builder().maxQpWr(4096).maxCqe(65536).maxSge(4).maxInlineData(256).maxQpRdAtom(16)
        .maxQpInitRdAtom(16).atomicCap(AtomicCap.HCA).maxMr(65536).build();
  }

  private final class Ctx extends AbstractContext {
    final int rank;
    final Job job;

    Ctx(int rank) {
      super(new Device("loop" + rank, "loop", NodeType.CA, TransportType.IB, rank + 1), VerbsConfig.of(Map.of()),
          attr());
      this.rank = rank;
      this.job = new LoopJob(rank);
    }

    @Override
    protected PortAttr portAttr(int port) {
      return PortAttr.builder().lid(rank + 1).build();
    }

    @Override
    protected long portCounter(int port, PortCounter counter) {
      return 0; // a loopback never loses, retries or NAKs
    }

    @Override
    protected AbstractProtectionDomain newPd(int handle) {
      return new Pd(this, handle);
    }

    @Override
    public Job job() {
      return job;
    }

    @Override
    public long nowNanos() {
      return System.nanoTime();
    }

    @Override
    public boolean modelledTime() {
      return false;
    }

    @Override
    protected void chargeClock(long nanos) {
      // a wall clock: the application's work already took real time
    }

    @Override
    protected void closeDevice() {
      synchronized (lock) {
        byLid.remove(rank + 1);
      }
    }
  }

  private final class Pd extends AbstractProtectionDomain {
    Pd(AbstractContext ctx, int handle) {
      super(ctx, handle);
    }

    @Override
    protected Set<QpType> supportedQpTypes() {
      return EnumSet.of(QpType.RC);
    }

    @Override
    protected AbstractQueuePair newQp(QpInitAttr attr) {
      Qp qp = new Qp(this, attr, QPNS.getAndIncrement());
      synchronized (lock) {
        byQpn.put(qp.qpNum(), qp);
      }
      return qp;
    }
  }

  /** A posted send: the WR and, for SEND and WRITE, its data gathered at post time. */
  private record Posted(SendWr wr, ByteBuffer data) {}

  private final class Qp extends AbstractQueuePair {
    final ArrayDeque<Posted> sq = new ArrayDeque<>();
    final WorkCompletion scratch = new WorkCompletion();
    final RecvWqe wqe = new RecvWqe();
    int destLid;
    int destQpn;

    Qp(AbstractProtectionDomain pd, QpInitAttr init, int qpn) {
      super(pd, init, qpn, init.cap());
    }

    Ctx ctx() {
      return (Ctx) pd.softContext();
    }

    @Override
    protected void applyModify(QpState from, QpState next, QpAttr merged, QpAttr requested) {
      if (requested.has(io.github.verbs4j.verbs.QpAttrMask.AV)) {
        destLid = merged.ahAttr().dlid();
      }
      if (requested.has(io.github.verbs4j.verbs.QpAttrMask.DEST_QPN)) {
        destQpn = merged.destQpNum();
      }
      if (next == QpState.ERR) {
        synchronized (lock) {
          flush();
        }
      }
    }

    @Override
    protected boolean sendQueueFull() {
      synchronized (lock) {
        return sq.size() >= cap.maxSendWr();
      }
    }

    @Override
    protected void enqueueSend(SendWr wr) {
      SendWr copy = new SendWr().copyFrom(wr);
      ByteBuffer data = null;
      WrOpcode op = wr.opcode();
      synchronized (lock) {
        if (op == WrOpcode.SEND || op == WrOpcode.RDMA_WRITE || op == WrOpcode.SEND_WITH_IMM
            || op == WrOpcode.RDMA_WRITE_WITH_IMM) {
          data = gather(copy);
        }
        sq.add(new Posted(copy, data));
      }
    }

    /** The WR's data, or null when an SGE has a bad lkey. */
    private ByteBuffer gather(SendWr wr) {
      int total = (int) wr.sgList().totalLength();
      ByteBuffer b = ByteBuffer.allocate(total);
      int pos = 0;
      for (int i = 0; i < wr.numSge(); i++) {
        var s = wr.sgList().sge(i);
        SoftMemoryRegion mr = ctx().memoryKeys().byLkey(s.lkey());
        if (mr == null || !mr.isValid() || mr.pd() != pd || !mr.contains(s.addr(), s.length())) {
          return null;
        }
        mr.copyOut(s.addr(), b, pos, s.length());
        pos += s.length();
      }
      return b;
    }

    @Override
    protected void sendPosted() {
      synchronized (lock) {
        run();
      }
    }

    @Override
    protected void recvPosted() {
      synchronized (lock) {
        if (state() == QpState.ERR) {
          flush();
          return;
        }
        List<Qp> waiting = new ArrayList<>(blocked);
        blocked.clear();
        for (Qp q : waiting) {
          q.run();
        }
      }
    }

    /** Executes queued WRs in order; stops at a SEND that finds no receive. Called under the lock. */
    void run() {
      while (!sq.isEmpty()) {
        if (state() == QpState.ERR) {
          flush();
          return;
        }
        Posted p = sq.peekFirst();
        Qp target = byQpn.get(destQpn);
        Ctx remote = byLid.get(destLid);
        if (target == null || remote == null || target.ctx() != remote || target.state() == QpState.RESET) {
          fail(p, WcStatus.RETRY_EXC_ERR);
          return;
        }
        WcStatus st = execute(p, target, remote);
        if (st == null) {
          if (!blocked.contains(this)) {
            blocked.add(this);
          }
          return;
        }
        sq.pollFirst();
        if (st != WcStatus.SUCCESS) {
          fail(p, st);
          return;
        }
        if (p.wr().hasFlag(io.github.verbs4j.verbs.SendFlag.SIGNALED) || init.sqSigAll()) {
          scratch.reset(p.wr().wrId(), WcStatus.SUCCESS, wcOpcode(p.wr().opcode()), qpNum)
              .byteLen((int) p.wr().sgList().totalLength());
          sendCq.push(scratch, false);
        }
      }
    }

    /** @return the status, or null when a SEND must wait for a receive */
    private WcStatus execute(Posted p, Qp target, Ctx remote) {
      SendWr wr = p.wr();
      if (p.data() == null && (wr.opcode() == WrOpcode.SEND || wr.opcode() == WrOpcode.RDMA_WRITE)) {
        return WcStatus.LOC_PROT_ERR;
      }
      switch (wr.opcode()) {
        case SEND -> {
          if (target.rq.size() == 0) {
            return null;
          }
          target.rq.pop(target.wqe);
          int len = p.data().capacity();
          if (len > target.wqe.totalLength()) {
            target.completeRecv(WcStatus.LOC_LEN_ERR, 0);
            return WcStatus.REM_INV_REQ_ERR;
          }
          int pos = 0;
          for (int i = 0; i < target.wqe.numSge() && pos < len; i++) {
            SoftMemoryRegion mr = remote.memoryKeys().byLkey(target.wqe.lkey(i));
            int n = Math.min(len - pos, target.wqe.length(i));
            if (mr == null || !mr.isValid() || !mr.contains(target.wqe.addr(i), n)) {
              target.completeRecv(WcStatus.LOC_PROT_ERR, 0);
              return WcStatus.REM_OP_ERR;
            }
            mr.copyIn(target.wqe.addr(i), p.data(), pos, n);
            pos += n;
          }
          target.completeRecv(WcStatus.SUCCESS, len);
          return WcStatus.SUCCESS;
        }
        case RDMA_WRITE -> {
          int len = p.data().capacity();
          SoftMemoryRegion mr = remoteMr(remote, wr.rkey(), wr.remoteAddr(), len, Access.REMOTE_WRITE);
          if (mr == null) {
            return WcStatus.REM_ACCESS_ERR;
          }
          mr.copyIn(wr.remoteAddr(), p.data(), 0, len);
          return WcStatus.SUCCESS;
        }
        case RDMA_READ -> {
          int len = (int) wr.sgList().totalLength();
          SoftMemoryRegion mr = remoteMr(remote, wr.rkey(), wr.remoteAddr(), len, Access.REMOTE_READ);
          if (mr == null) {
            return WcStatus.REM_ACCESS_ERR;
          }
          ByteBuffer b = ByteBuffer.allocate(len);
          mr.copyOut(wr.remoteAddr(), b, 0, len);
          return scatter(wr, b);
        }
        case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP -> {
          SoftMemoryRegion mr = remoteMr(remote, wr.rkey(), wr.remoteAddr(), 8, Access.REMOTE_ATOMIC);
          if (mr == null) {
            return WcStatus.REM_ACCESS_ERR;
          }
          long old = wr.opcode() == WrOpcode.ATOMIC_FETCH_AND_ADD ? mr.fetchAdd(wr.remoteAddr(), wr.compareAdd())
              : mr.compareSwap(wr.remoteAddr(), wr.compareAdd(), wr.swap());
          ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, old);
          return scatter(wr, b);
        }
        default -> throw new VerbsException(Errno.EOPNOTSUPP, "loopback does not implement " + wr.opcode());
      }
    }

    private WcStatus scatter(SendWr wr, ByteBuffer b) {
      int pos = 0;
      for (int i = 0; i < wr.numSge() && pos < b.capacity(); i++) {
        var s = wr.sgList().sge(i);
        int n = Math.min(s.length(), b.capacity() - pos);
        SoftMemoryRegion mr = ctx().memoryKeys().byLkey(s.lkey());
        if (mr == null || !mr.isValid() || !mr.contains(s.addr(), n)) {
          return WcStatus.LOC_PROT_ERR;
        }
        mr.copyIn(s.addr(), b, pos, n);
        pos += n;
      }
      return WcStatus.SUCCESS;
    }

    private SoftMemoryRegion remoteMr(Ctx remote, int rkey, long addr, int len, Access need) {
      SoftMemoryRegion mr = remote.memoryKeys().byRkey(rkey);
      if (mr == null || !mr.isValid() || !mr.allows(need) || !mr.contains(addr, len)) {
        return null;
      }
      return mr;
    }

    void completeRecv(WcStatus st, int len) {
      scratch.reset(wqe.wrId(), st, WcOpcode.RECV, qpNum).byteLen(len);
      recvCq.push(scratch, false);
      if (st != WcStatus.SUCCESS) {
        enterError();
        flush();
      }
    }

    private void fail(Posted p, WcStatus st) {
      scratch.reset(p.wr().wrId(), st, wcOpcode(p.wr().opcode()), qpNum);
      sendCq.push(scratch, false);
      sq.pollFirst();
      enterError();
      flush();
    }

    /** Completes every queued WR with WR_FLUSH_ERR (in ERR). Called under the lock. */
    void flush() {
      blocked.remove(this);
      Posted p;
      while ((p = sq.pollFirst()) != null) {
        scratch.reset(p.wr().wrId(), WcStatus.WR_FLUSH_ERR, wcOpcode(p.wr().opcode()), qpNum);
        sendCq.push(scratch, false);
      }
      while (rq != null && rq.pop(wqe)) {
        scratch.reset(wqe.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qpNum);
        recvCq.push(scratch, false);
      }
    }

    @Override
    protected void destroy() {
      synchronized (lock) {
        byQpn.remove(qpNum);
        blocked.remove(this);
        sq.clear();
      }
    }
  }

  private static WcOpcode wcOpcode(WrOpcode op) {
    return switch (op) {
      case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
      case RDMA_READ -> WcOpcode.RDMA_READ;
      case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
      case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
      default -> WcOpcode.SEND;
    };
  }

  private final class LoopJob implements Job {
    private final int rank;

    LoopJob(int rank) {
      this.rank = rank;
    }

    @Override
    public int rank() {
      return rank;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public void put(String key, byte[] value) {
      synchronized (kv) {
        byte[] old = kv.putIfAbsent(key, value.clone());
        if (old != null && !java.util.Arrays.equals(old, value)) {
          throw new VerbsException(Errno.EINVAL, "key " + key + " was already published with another value");
        }
        kv.notifyAll();
      }
    }

    @Override
    public byte[] get(String key, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (kv) {
        while (!kv.containsKey(key)) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new VerbsException(Errno.ETIMEDOUT, "key " + key + " was not published within " + timeout);
          }
          waitNanos(left);
        }
        return kv.get(key).clone();
      }
    }

    @Override
    public void barrier(String name, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (kv) {
        Set<Integer> in = barriers.computeIfAbsent(name, n -> new HashSet<>());
        in.add(rank);
        kv.notifyAll();
        while (in.size() < size) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new VerbsException(Errno.ETIMEDOUT, "barrier " + name + " timed out with " + in + " in");
          }
          waitNanos(left);
        }
      }
    }

    private void waitNanos(long nanos) {
      try {
        kv.wait(Math.max(1, nanos / 1_000_000), 0);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new VerbsException(Errno.ETIMEDOUT, "interrupted");
      }
    }
  }

  /**
   * Runs {@code body} on every rank, one thread and one context each, closing the contexts after.
   *
   * @param size ranks
   * @param body what each rank does with its context
   * @param <T> the result type
   * @return the results in rank order
   * @throws Exception the first rank's failure
   */
  public static <T> List<T> run(int size, RankBody<T> body) throws Exception {
    Loopback fabric = new Loopback(size);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(size);
    try {
      List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        int rank = r;
        futures.add(pool.submit(() -> {
          try (Context ctx = fabric.open(rank)) {
            return body.run(ctx);
          }
        }));
      }
      List<T> out = new ArrayList<>();
      for (java.util.concurrent.Future<T> f : futures) {
        try {
          out.add(f.get(120, java.util.concurrent.TimeUnit.SECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof Exception ex) {
            throw ex;
          }
          throw e;
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * What one rank does.
   *
   * @param <T> its result
   */
  @FunctionalInterface
  public interface RankBody<T> {
    /**
     * @param ctx the rank's context
     * @return its result
     * @throws Exception on failure
     */
    T run(Context ctx) throws Exception;
  }
}
