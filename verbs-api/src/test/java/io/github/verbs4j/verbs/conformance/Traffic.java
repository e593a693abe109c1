package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Ping-pong traffic like pyverbs' {@code utils.traffic}: rank 0 (client) sends {@code 'c'} bytes,
 * rank 1 (server) answers with {@code 's'} bytes, both check every completion (status, opcode,
 * byte_len, qp_num) and the bytes received. Receive buffers are cleared before each receive so
 * that stale data cannot pass. Completions are taken through a {@link Poller}: busy-polling
 * ({@link Peer#pollUntil}) or the completion channel ({@link #channelPoller}).
 */
public final class Traffic {
  /** The client's fill byte. */
  public static final byte CLIENT_FILL = 'c';
  /** The server's fill byte. */
  public static final byte SERVER_FILL = 's';

  private Traffic() {}

  /** How a scenario takes {@code n} completions from a CQ. */
  @FunctionalInterface
  public interface Poller {
    /**
     * @param cq the CQ
     * @param n how many
     * @return the completions
     */
    List<WorkCompletion> poll(CompletionQueue cq, int n);
  }

  /**
   * Busy-polling with back-off.
   *
   * @param p the rank
   * @return the poller
   */
  public static Poller busyPoller(Peer p) {
    return p::pollUntil;
  }

  /**
   * The canonical event loop of {@code ibv_get_cq_event(3)}: poll; if nothing, await an event, ack
   * it, re-arm, poll again. The CQ must have been armed once ({@code requestNotify(false)}) before
   * the first call. {@code events[0]} counts the events taken. Spurious events (the completion was
   * already polled) are tolerated.
   *
   * @param p the rank
   * @param channel the CQ's channel
   * @param events a one-element counter
   * @return the poller
   */
  public static Poller channelPoller(Peer p, CompletionChannel channel, int[] events) {
    return (cq, n) -> {
      List<WorkCompletion> got = new ArrayList<>(n);
      WorkCompletion[] wcs = WorkCompletion.array(n);
      long deadline = System.nanoTime() + p.timeout().toNanos();
      while (got.size() < n) {
        int k = cq.poll(wcs, n - got.size());
        for (int i = 0; i < k; i++) {
          got.add(new WorkCompletion().copyFrom(wcs[i]));
        }
        if (got.size() == n) {
          break;
        }
        p.checkAborted();
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("rank " + p.rank() + ": expected " + n + " completion(s) through the channel, "
              + got.size() + " arrived: " + got);
        }
        Optional<CompletionQueue> ev = channel.await(Duration.ofMillis(100));
        if (ev.isPresent()) {
          assertEquals(cq, ev.get(), "the event names the CQ that raised it");
          ev.get().ackEvents(1);
          events[0]++;
          ev.get().requestNotify(false);
        }
      }
      return got;
    };
  }

  /**
   * Takes and acknowledges the events still queued on {@code channel} (one may arrive just after
   * its completion was polled), so that the CQs can be closed.
   *
   * @param channel the channel
   * @param quiet how long no event must arrive
   * @return how many were taken
   */
  public static int drainChannel(CompletionChannel channel, Duration quiet) {
    int n = 0;
    Optional<CompletionQueue> ev;
    while ((ev = channel.await(quiet)).isPresent()) {
      ev.get().ackEvents(1);
      n++;
    }
    return n;
  }

  /**
   * Takes completions by kind from a send and a receive CQ that may be the same CQ: when they are,
   * a receive completion can arrive before the send completion of an earlier reply (its ACK may
   * come late), so completions of the other kind are kept for the next call.
   */
  public static final class Completions {
    private final Poller poller;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final ArrayDeque<WorkCompletion> keptSends = new ArrayDeque<>();
    private final ArrayDeque<WorkCompletion> keptRecvs = new ArrayDeque<>();

    /**
     * @param poller how completions are taken
     * @param sendCq the send CQ
     * @param recvCq the receive CQ (may be {@code sendCq})
     */
    public Completions(Poller poller, CompletionQueue sendCq, CompletionQueue recvCq) {
      this.poller = poller;
      this.sendCq = sendCq;
      this.recvCq = recvCq;
    }

    /** @return the next send-side completion */
    public WorkCompletion send() {
      return take(false);
    }

    /** @return the next receive completion */
    public WorkCompletion recv() {
      return take(true);
    }

    private WorkCompletion take(boolean receive) {
      ArrayDeque<WorkCompletion> kept = receive ? keptRecvs : keptSends;
      if (!kept.isEmpty()) {
        return kept.poll();
      }
      if (sendCq != recvCq) {
        return poller.poll(receive ? recvCq : sendCq, 1).get(0);
      }
      while (true) {
        WorkCompletion wc = poller.poll(sendCq, 1).get(0);
        if (wc.opcode().isReceive() == receive) {
          return wc;
        }
        (receive ? keptSends : keptRecvs).add(wc);
      }
    }
  }

  private static void clear(ByteBuffer b, int off, int len) {
    for (int i = 0; i < len; i++) {
      b.put(off + i, (byte) 0);
    }
  }

  /**
   * RC SEND ping-pong of {@code r.msgSize()} bytes, {@code iters} round trips (scenario 15).
   *
   * @param p the rank
   * @param r a connected RC end
   * @param iters round trips
   * @param poller how completions are taken
   */
  public static void rcPingPong(Peer p, RcResources r, int iters, Poller poller) {
    int msg = r.msgSize();
    int qpn = r.qp().qpNum();
    ByteBuffer buf = r.buffer();
    byte mine = p.isClient() ? CLIENT_FILL : SERVER_FILL;
    byte theirs = p.isClient() ? SERVER_FILL : CLIENT_FILL;
    Completions wcs = new Completions(poller, r.sendCq(), r.recvCq());
    clear(buf, r.recvOffset(), msg);
    r.postRecv(0);
    p.barrier(p.uniqueName("rc-pingpong"));
    for (int i = 0; i < iters; i++) {
      if (p.isClient()) {
        fill(buf, 0, msg, mine);
        r.qp().postSend(r.send(1000 + i, msg));
        KitAssertions.assertWc(wcs.send(), 1000 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        checkRecv(wcs.recv(), i, msg, qpn);
        KitAssertions.assertFilled(buf, r.recvOffset(), msg, theirs);
        clear(buf, r.recvOffset(), msg);
        if (i + 1 < iters) {
          r.postRecv(i + 1);
        }
      } else {
        checkRecv(wcs.recv(), i, msg, qpn);
        KitAssertions.assertFilled(buf, r.recvOffset(), msg, theirs);
        clear(buf, r.recvOffset(), msg);
        if (i + 1 < iters) {
          r.postRecv(i + 1);
        }
        fill(buf, 0, msg, mine);
        r.qp().postSend(r.send(1000 + i, msg));
        KitAssertions.assertWc(wcs.send(), 1000 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      }
    }
  }

  /**
   * UD SEND ping-pong of {@code u}'s message size, {@code iters} round trips: payload at offset 40
   * of the receive buffer, byte_len = message + 40, src_qp = the peer's QPN.
   *
   * @param p the rank
   * @param u a UD end after {@link UdResources#exchangeInfo()}
   * @param msg message bytes (at most the port MTU)
   * @param iters round trips
   * @param poller how completions are taken
   */
  public static void udPingPong(Peer p, UdResources u, int msg, int iters, Poller poller) {
    int qpn = u.qp().qpNum();
    ByteBuffer send = u.sendMr().buffer();
    ByteBuffer recv = u.recvMr().buffer();
    byte mine = p.isClient() ? CLIENT_FILL : SERVER_FILL;
    byte theirs = p.isClient() ? SERVER_FILL : CLIENT_FILL;
    Completions wcs = new Completions(poller, u.sendCq(), u.recvCq());
    clear(recv, 0, (int) u.recvMr().length());
    u.postRecv(0);
    p.barrier(p.uniqueName("ud-pingpong"));
    for (int i = 0; i < iters; i++) {
      if (p.isClient()) {
        fill(send, 0, msg, mine);
        u.qp().postSend(u.send(1000 + i, msg));
        KitAssertions.assertWc(wcs.send(), 1000 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        checkUdRecv(wcs.recv(), i, msg, qpn, u.remoteQpn());
        KitAssertions.assertFilled(recv, UdResources.GRH_SIZE, msg, theirs);
        clear(recv, 0, (int) u.recvMr().length());
        if (i + 1 < iters) {
          u.postRecv(i + 1);
        }
      } else {
        checkUdRecv(wcs.recv(), i, msg, qpn, u.remoteQpn());
        KitAssertions.assertFilled(recv, UdResources.GRH_SIZE, msg, theirs);
        clear(recv, 0, (int) u.recvMr().length());
        if (i + 1 < iters) {
          u.postRecv(i + 1);
        }
        fill(send, 0, msg, mine);
        u.qp().postSend(u.send(1000 + i, msg));
        KitAssertions.assertWc(wcs.send(), 1000 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      }
    }
  }

  private static void checkRecv(WorkCompletion wc, long wrId, int msg, int qpn) {
    KitAssertions.assertWc(wc, wrId, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
    assertEquals(msg, wc.byteLen(), () -> "byte_len of " + wc);
  }

  private static void checkUdRecv(WorkCompletion wc, long wrId, int msg, int qpn, int srcQp) {
    KitAssertions.assertWc(wc, wrId, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
    assertEquals(msg + UdResources.GRH_SIZE, wc.byteLen(), () -> "byte_len (payload + 40) of " + wc);
    assertEquals(srcQp, wc.srcQp(), () -> "src_qp of " + wc);
  }

  /**
   * Fills {@code len} bytes at {@code off} with {@code b}.
   *
   * @param buf the memory
   * @param off where
   * @param len how many
   * @param b the byte
   */
  public static void fill(ByteBuffer buf, int off, int len, byte b) {
    for (int i = 0; i < len; i++) {
      buf.put(off + i, b);
    }
  }
}
