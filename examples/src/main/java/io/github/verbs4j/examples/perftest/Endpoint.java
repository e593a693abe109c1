package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.CompletionError;
import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.common.RcAddress;
import io.github.verbs4j.examples.common.RcConnector;
import io.github.verbs4j.examples.common.WaitTimeoutException;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ThreadLocalRandom;
import org.agrona.concurrent.IdleStrategy;

/**
 * One side of a perftest connection: a PD, a send CQ and a receive CQ, one RC QP, and one memory
 * region split in two halves: the <em>local</em> half [0, half) is the source of sends and writes and
 * the destination of reads; the <em>remote</em> half [half, 2·half) is what the peer writes into and
 * reads from (its address and rkey are published). Owns everything it creates and closes it in
 * reverse order.
 */
final class Endpoint implements AutoCloseable {
  final Context ctx;
  final ProtectionDomain pd;
  final CompletionQueue sendCq;
  final CompletionQueue recvCq;
  final MemoryRegion mr;
  final QueuePair qp;
  final ByteBuffer buf;
  final int half;
  final int outReads;
  private final int mtu;
  private final Duration waitTimeout;
  private final WorkCompletion[] wcs;
  private final IdleStrategy backoff = LoopIdle.latency();
  private final IdleStrategy throughputBackoff = LoopIdle.throughput();
  private RcAddress local;
  private RcAddress remote;

  /**
   * @param ctx the device
   * @param half bytes in each half of the buffer
   * @param cap QP capacities
   * @param outReads READ/atomic requests this side accepts and may issue
   * @param mtu path MTU in bytes
   * @param pollBatch completions taken per poll
   * @param waitTimeout longest wait for one completion
   */
  Endpoint(Context ctx, int half, QpCap cap, int outReads, int mtu, int pollBatch, Duration waitTimeout,
      MemoryKind kind) {
    this.ctx = ctx;
    this.half = half;
    this.outReads = outReads;
    this.mtu = mtu;
    this.waitTimeout = waitTimeout;
    this.wcs = WorkCompletion.array(pollBatch);
    ProtectionDomain p = null;
    CompletionQueue s = null;
    CompletionQueue r = null;
    MemoryRegion m = null;
    try {
      p = ctx.allocPd();
      s = ctx.createCq(Math.max(1, cap.maxSendWr()), null, 0);
      r = ctx.createCq(Math.max(1, cap.maxRecvWr()), null, 0);
      m = p.allocateMemory(2L * half,
          EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC), kind);
      this.qp = p.createQp(QpInitAttr.builder(QpType.RC).sendCq(s).recvCq(r).cap(cap).build());
    } catch (RuntimeException e) {
      closeQuietly(e, m, r, s, p);
      throw e;
    }
    this.pd = p;
    this.sendCq = s;
    this.recvCq = r;
    this.mr = m;
    this.buf = m.buffer();
  }

  /**
   * Publishes this side's address, reads the peer's, and brings the QP to RTS.
   *
   * @param ch the job channel
   * @param peer the peer's rank
   */
  void connect(JobChannel ch, int peer) {
    RcConnector.toInit(qp);
    int lid = ctx.queryPort(1).lid();
    int psn = ThreadLocalRandom.current().nextInt(1 << 24);
    local = new RcAddress(lid, qp.qpNum(), psn, mr.rkey(), mr.address() + half, outReads, mtu);
    ch.publish("addr", local.encode());
    remote = RcAddress.decode(ch.lookup("addr", peer));
    RcConnector.connect(qp, local, remote, Math.min(outReads, remote.outReads()), outReads);
  }

  RcAddress local() {
    return local;
  }

  RcAddress remote() {
    return remote;
  }

  /** @return the address of the local half's first byte */
  long localAddr() {
    return mr.address();
  }

  /** @return the offset of the remote half in {@link #buf} */
  int remoteOffset() {
    return half;
  }

  /**
   * Waits for at least one completion on {@code cq} and returns how many were taken into {@link
   * #wcs()}; every one must have succeeded.
   *
   * @param cq the CQ
   * @param side {@code client} or {@code server}, for the error report
   * @param scnt posted so far
   * @param ccnt completed so far
   * @return the number of completions (at least 1)
   * @throws CompletionError for a completion with an error status
   * @throws WaitTimeoutException after the wait timeout
   */
  int await(CompletionQueue cq, String side, long scnt, long ccnt) {
    return await(cq, side, scnt, ccnt, backoff);
  }

  /**
   * {@link #await} for a loop that keeps many WRs outstanding: waits with {@link
   * LoopIdle#throughput()}, which parks sooner.
   */
  int awaitBatch(CompletionQueue cq, String side, long scnt, long ccnt) {
    return await(cq, side, scnt, ccnt, throughputBackoff);
  }

  private int await(CompletionQueue cq, String side, long scnt, long ccnt, IdleStrategy backoff) {
    int n = cq.poll(wcs);
    if (n == 0) {
      long deadline = System.nanoTime() + waitTimeout.toNanos();
      backoff.reset();
      int idles = 0;
      while ((n = cq.poll(wcs)) == 0) {
        idle(backoff);
        if ((++idles & 0xff) == 0 && System.nanoTime() - deadline > 0) {
          throw new WaitTimeoutException("no completion on the " + (cq == sendCq ? "send" : "receive") + " CQ within "
              + waitTimeout.toMillis() + " ms (scnt=" + scnt + ", ccnt=" + ccnt + ")");
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (wcs[i].status() != WcStatus.SUCCESS) {
        throw CompletionError.of(side, wcs[i], scnt, ccnt, otherErrors(cq));
      }
    }
    return n;
  }

  /** After an empty poll: the job's next modelled instant when it runs in steps, else the back-off. */
  private void idle(IdleStrategy backoff) {
    if (!ctx.job().awaitModelledStep()) {
      backoff.idle();
    }
  }

  /**
   * A flush error is a consequence; the cause (e.g. a retry-exceeded send) may sit in the other CQ.
   *
   * @return the first error completion waiting in the other CQ, described, or null
   */
  private String otherErrors(CompletionQueue polled) {
    CompletionQueue other = polled == sendCq ? recvCq : sendCq;
    WorkCompletion[] more = WorkCompletion.array(16);
    try {
      int m;
      while ((m = other.poll(more)) > 0) {
        for (int i = 0; i < m; i++) {
          if (more[i].status() != WcStatus.SUCCESS && more[i].status() != WcStatus.WR_FLUSH_ERR) {
            return (other == sendCq ? "send" : "receive") + " CQ: " + more[i].status().str() + " ("
                + more[i].status().value() + "), wr_id " + more[i].wrId() + ", opcode " + more[i].opcode();
          }
        }
      }
    } catch (RuntimeException e) {
      return "the other CQ cannot be polled: " + e.getMessage();
    }
    return null;
  }

  /**
   * Waits until byte {@code index} of the buffer holds {@code value} (perftest's write_lat polls the
   * last byte of the message it expects).
   *
   * @param index the byte
   * @param value the expected value
   * @param rcnt the iteration, for the timeout message
   */
  void awaitByte(int index, byte value, long rcnt) {
    java.lang.invoke.VarHandle.acquireFence();
    if (buf.get(index) == value) {
      return;
    }
    long deadline = System.nanoTime() + waitTimeout.toNanos();
    backoff.reset();
    int idles = 0;
    while (true) {
      java.lang.invoke.VarHandle.acquireFence();
      if (buf.get(index) == value) {
        return;
      }
      progress(rcnt);
      idle(backoff);
      if ((++idles & 0xff) == 0 && System.nanoTime() - deadline > 0) {
        throw new WaitTimeoutException("iteration " + rcnt + ": the peer's RDMA WRITE did not arrive within "
            + waitTimeout.toMillis() + " ms (byte " + index + " is " + buf.get(index) + ", expected " + value + ")");
      }
    }
  }

  /**
   * Calls into the provider while waiting on memory, as a libfabric program with manual progress
   * does: a provider whose engine runs on the caller's thread ({@code verbs.threading=invoker},
   * which also runs the fabric's I/O there) moves packets only inside
   * verbs calls, where a NIC would write the memory on its own. The receive CQ is polled: it is
   * empty in the programs that wait on memory (they post no receives), so a completion there is an
   * error.
   */
  private void progress(long rcnt) {
    int n = recvCq.poll(wcs);
    if (n > 0) {
      throw new IllegalStateException("iteration " + rcnt + ": unexpected completion on the receive CQ while waiting "
          + "for the peer's RDMA WRITE: " + wcs[0]);
    }
  }

  WorkCompletion[] wcs() {
    return wcs;
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    failure = closeOne(failure, qp);
    failure = closeOne(failure, mr);
    failure = closeOne(failure, recvCq);
    failure = closeOne(failure, sendCq);
    failure = closeOne(failure, pd);
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException closeOne(RuntimeException failure, AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception e) {
      RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
      if (failure == null) {
        return r;
      }
      failure.addSuppressed(r);
    }
    return failure;
  }

  private static void closeQuietly(RuntimeException primary, AutoCloseable... cs) {
    for (AutoCloseable c : cs) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        primary.addSuppressed(e);
      }
    }
  }
}
