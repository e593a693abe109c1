package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.tca.peach2.DataLinkLayer.State;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transmitter of one {@link PcieLink} (PCIe Base Specification 2.0 §3.5.2, variable names as
 * there): NEXT_TRANSMIT_SEQ, ACKD_SEQ, the replay buffer, REPLAY_NUM and the replay timer. It
 * numbers and checks each TLP frame, keeps it until the partner acknowledges it, replays what is
 * unacknowledged on a Nak or when the replay timer runs out (the fourth replay in a row retrains
 * first), takes the link down after the link-down timeout, and holds the frames that cannot leave
 * yet ({@link HeldFrames}: no room, initialising, or ahead of the modelled clock).
 *
 * <p>Every method runs under the link's monitor (callers that may wait for room wait on it).
 */
final class LinkTransmitter {
  private static final Logger LOG = LoggerFactory.getLogger(PcieLink.class);
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;
  private static final long WAIT_SLICE_MS = 1;
  /** Wall clock: how long an expired replay timer waits for an Ack queued behind it (a yield). */
  private static final long GRACE_NS = 20_000;

  private final PcieLink link;
  private final LinkReceiver receiver;
  private final DataLinkLayer dll;
  private final Peach2Counters counters;
  private final DataLinkParams dl;
  private final int node;
  private final int hops;
  private final boolean wall;
  private final long downAfter;
  private final ReplayBuffer replay;
  private final HeldFrames pending;
  private final CRC32 txCrc = new CRC32();
  private final HostScheduler.Timer txTimer;
  private int nextTransmitSeq;
  private int ackdSeq = SEQ_MASK;
  private int replayNum;
  private final ReplayTimeout timeout;
  private long replayDeadline; // 0: the timer is stopped
  private boolean graced; // wall clock: ran out once, replays if still out after a grace
  private int expiries; // replay-timer expiries since the last progress
  private long lastProgress;
  private long retrainEnd;
  private boolean txTimerScheduled;
  private int waiters;

  LinkTransmitter(PcieLink link, LinkReceiver receiver, DataLinkLayer dll, int hops, boolean wall) {
    this.link = link;
    this.receiver = receiver;
    this.dll = dll;
    this.counters = dll.counters;
    this.dl = dll.params.dataLink();
    this.node = link.node;
    this.hops = hops;
    this.wall = wall;
    long minTimeout = dl.replayTimeoutNs(dll.params, hops, wall);
    this.downAfter = dl.linkDownNs(wall);
    this.timeout = new ReplayTimeout(minTimeout, wall ? dl.wallMaxReplayTimeoutNs() : downAfter / 8);
    this.replay = new ReplayBuffer(dl.replayBufferTlps());
    this.pending = new HeldFrames(dll, this::releaseDue);
    this.txTimer = dll.scheduler.timer(link::onTxTimer);
  }

  /** @return TLPs sent and not acknowledged yet */
  int unacknowledgedTlps() {
    return replay.totalTlps();
  }

  /** @return the replay timeout's bounds (the initialisation handshake probes within them) */
  ReplayTimeout timeout() {
    return timeout;
  }

  /** The timer armed by {@link #armTx} ran (the link took its monitor). */
  void timerRan() {
    txTimerScheduled = false;
  }

  /** The link is active (again): the link-down timeout counts from {@code now}. */
  void started(long now) {
    lastProgress = now;
  }

  /** Sends again what is unacknowledged, if anything is. */
  void resendUnacknowledged(long now) {
    if (!replay.isEmpty()) {
      resend(now);
    }
  }

  private int outstandingTlps() {
    return (nextTransmitSeq - 1 - ackdSeq) & SEQ_MASK;
  }

  private boolean full(int tlps) {
    return !replay.hasRoom(tlps)
        || outstandingTlps() + tlps >= DataLinkParams.MAX_OUTSTANDING_TLPS && !replay.isEmpty();
  }

  // The modelled send time of the first transmission in progress (a DMA channel's timeline), or
  // MIN_VALUE: replays, DLLPs and frames that waited for room leave at the clock's now.
  private long sendAt = Long.MIN_VALUE;
  private long lastSendAt = Long.MIN_VALUE; // when the last first transmission left (modelled)

  /** See {@link DataLinkLayer#transmit}. */
  boolean transmit(ByteBuf frame, int tlps, long sendTimeNanos) {
    if (link.flowing() && mustWait(tlps) && dll.scheduler.canWait() && !dll.closed()) {
      counters.link(Link.STALLS, 1);
      waiters++;
      try {
        while (link.flowing() && mustWait(tlps) && !dll.closed()) {
          link.wait(WAIT_SLICE_MS);
          drainPending(); // what others left waiting goes first, as soon as there is room
        }
      } catch (InterruptedException e) {
        // the caller stops waiting and keeps its interrupt; its frame queues behind the full
        // buffer as a frame of a caller that cannot wait does: an interrupt never loses a TLP
        Thread.currentThread().interrupt();
      } finally {
        waiters--;
      }
    }
    if (dll.closed() || link.state == State.DOWN) {
      return drop(frame, dll.closed() ? "closed" : "link_down");
    }
    boolean ahead = pending.ahead(sendTimeNanos);
    if (link.state == State.INIT || link.state == State.RETRAIN || !pending.isEmpty() || full(tlps) || ahead) {
      // held (HeldFrames); while initialising, at most a replay buffer's worth. What the link sends
      // meanwhile (Acks, replays) is not stamped behind data of a DMA timeline that has not left.
      if (link.state == State.INIT && pending.tlps() + tlps > dl.replayBufferTlps()) {
        return drop(frame, "link_init");
      }
      boolean first = pending.isEmpty();
      pending.add(frame, tlps, sendTimeNanos);
      if (first && ahead && link.state == State.ACTIVE) {
        pending.armRelease(sendTimeNanos);
      }
      return true;
    }
    sendAt = sendTimeNanos;
    try {
      send(frame, tlps, dll.clock.nowNanos());
    } finally {
      sendAt = Long.MIN_VALUE;
    }
    return true;
  }

  /**
   * Whether a caller that may wait should, before its frame can go: while retraining, while the
   * replay buffer has no room for it, or behind frames held for room. Frames held only until the
   * clock reaches their send time do not make it wait (it queues behind them): what releases them
   * is the clock, which a waiting thread could keep from moving.
   */
  private boolean mustWait(int tlps) {
    if (link.state == State.RETRAIN) {
      return true;
    }
    return pending.isEmpty() ? full(tlps) : !pending.headAhead();
  }

  /** @return whether a frame is held until the modelled clock reaches its send time (any thread) */
  boolean holdsFrameAhead() {
    return pending.headAhead();
  }

  /** The clock reached the first held frame's send time: it and what is due behind it leave. */
  private void releaseDue() {
    synchronized (link) {
      pending.released();
      if (!dll.closed()) {
        drainPending();
      }
    }
  }

  private boolean drop(ByteBuf frame, String why) {
    counters.drop(why);
    frame.release();
    return false;
  }

  /** First transmission of a frame: sequence number, LCRC, a copy kept for replay, a shared Ack. */
  private void send(ByteBuf frame, int tlps, long clockNow) {
    // A frame of a DMA channel leaves (and is timed) at the channel's time, even if the clock has
    // passed it by the time its release runs; frames take sequence numbers in the order they
    // leave, so none leaves before the one before.
    long now = Math.max(sendAt != Long.MIN_VALUE ? sendAt : clockNow, lastSendAt);
    lastSendAt = now;
    long saved = sendAt;
    sendAt = now;
    try {
      sendNow(frame, tlps, clockNow, now);
    } finally {
      sendAt = saved;
    }
  }

  private void sendNow(ByteBuf sent, int tlps, long clockNow, long now) {
    ByteBuf frame = LinkFrame.raw(sent); // fields only: ownership stays with sent
    int seq = nextTransmitSeq;
    nextTransmitSeq = (seq + tlps) & SEQ_MASK;
    int off = frame.readerIndex();
    LinkFrame.writeTlpHeader(frame, off, seq);
    int lcrcAt = frame.writerIndex() - off;
    boolean checked = dll.link.mayCorrupt();
    frame.setInt(off + lcrcAt, checked ? LinkFrame.lcrc(frame, off, lcrcAt, txCrc) : 0);
    frame.writerIndex(off + lcrcAt + LinkFrame.LCRC_LENGTH);
    if (replay.isEmpty()) {
      lastProgress = now;
    }
    // the replay buffer keeps a reference and the bytes so far: replays never carry the Ack appended below
    replay.add(sent.retain(), off, lcrcAt + LinkFrame.LCRC_LENGTH, seq, tlps, checked, now);
    if (receiver.ackPending() && frame.writableBytes() >= LinkFrame.DLLP_TRAILER) {
      Peach2Dllp.write(frame, frame.writerIndex(), Peach2Dllp.ACK, receiver.lastSeq());
      frame.writerIndex(frame.writerIndex() + LinkFrame.DLLP_TRAILER);
      receiver.acked();
      counters.link(Link.ACKS_SHARED, 1);
    }
    put(sent, !checked);
    if (replayDeadline == 0) {
      replayDeadline = now + timeout.current();
      armTx(replayDeadline - clockNow);
    }
  }

  /** Hands a frame to the fabric and counts it. */
  void put(ByteBuf frame, boolean unchecked) {
    if (dll.closed()) {
      frame.release(); // the board is closing: nothing more leaves it (its counters are final)
      return;
    }
    int bytes = LinkFrame.raw(frame).readableBytes();
    if (dll.link.transmit(node, frame, unchecked, sendAt)) {
      counters.frameSent(bytes, hops);
    } else {
      counters.drop("link_refused"); // lost like a frame the wire dropped: the replay recovers it
    }
  }

  /**
   * Hands a DLLP frame of the receiver to the fabric.
   *
   * @param f the frame
   * @param at the hardware's time it leaves (modelled), or MIN_VALUE for now
   */
  void putAt(ByteBuf f, long at) {
    long saved = sendAt;
    sendAt = at;
    try {
      put(f, false);
    } finally {
      sendAt = saved;
    }
  }

  void armTx(long delay) {
    if (!txTimerScheduled && !dll.closed()) {
      txTimerScheduled = true;
      txTimer.arm(Math.max(0, delay));
    }
  }

  /**
   * Modelled time: the replay timer carries exactly the current deadline. A timer left at an old
   * deadline would be the next event of an idle fabric and move the clock there (by a whole replay
   * timeout) although nothing is left to replay.
   */
  private void retimeReplay(long now) {
    if (txTimerScheduled) {
      txTimer.cancel();
      txTimerScheduled = false;
    }
    if (replayDeadline != 0) {
      armTx(replayDeadline - now);
    }
  }

  /** A replay: every unacknowledged frame again, in order; the fourth in a row retrains first. */
  private void replay(long now) {
    if (replay.isEmpty()) {
      replayDeadline = 0;
      return;
    }
    replayNum = (replayNum + 1) % DataLinkParams.REPLAY_NUM_ROLLOVER;
    if (replayNum == 0) {
      counters.link(Link.RETRAINS, 1);
      link.state = State.RETRAIN;
      retrainEnd = now + dl.retrainNs();
      armTx(dl.retrainNs());
      return;
    }
    resend(now);
  }

  private void resend(long now) {
    int n = replay.size();
    if (n == 0) {
      replayDeadline = 0;
      return;
    }
    counters.link(Link.REPLAYS, 1);
    replay.markResent();
    for (int k = 0; k < n; k++) {
      put(replay.replica(k), !replay.checked(k));
    }
    counters.link(Link.REPLAYED_FRAMES, n);
    // the timer counts from when the replay has left (PCIe starts it at the end of a transmission):
    // an Ack cannot come sooner, and a replay longer than the timeout would otherwise replay again
    // before its frames are out, filling the link with replays (modelled time; the wall clock's
    // timeout follows the round trips)
    long out = 0;
    if (!wall) {
      for (int k = 0; k < n; k++) {
        out += dll.params.wireNs(replay.length(k));
      }
    }
    replayDeadline = now + out + timeout.current();
    armTx(out + timeout.current());
  }

  /** Sends what was held (callers that could not wait, or frames posted while initialising). */
  void drainPending() {
    ByteBuf f;
    while (link.state == State.ACTIVE && (f = pending.peek()) != null) {
      if (pending.headAhead()) {
        pending.armRelease(pending.headSendAt());
        break;
      }
      ByteBuf r = LinkFrame.raw(f);
      int tlps = dll.tlps(r, r.readerIndex() + LinkFrame.BODY_OFFSET);
      if (full(tlps)) {
        break;
      }
      sendAt = pending.headSendAt();
      pending.take(tlps);
      try {
        send(f, tlps, dll.clock.nowNanos());
      } finally {
        sendAt = Long.MIN_VALUE;
      }
    }
    if (waiters > 0) {
      link.notifyAll();
    }
  }

  /** The retraining time ran out: the link is active again and replays what is unacknowledged. */
  void onRetrainTimer(long now) {
    if (now < retrainEnd) {
      armTx(retrainEnd - now);
      return;
    }
    link.state = State.ACTIVE;
    resend(now);
    drainPending();
  }

  /** The replay timer ran out (the link is active). */
  void onReplayTimer(long now) {
    if (replayDeadline == 0) {
      return;
    }
    if (now - lastProgress >= downAfter && expiries >= 2 * DataLinkParams.REPLAY_NUM_ROLLOVER) {
      // long enough, and tried often enough: a pause of the whole process (a garbage collection)
      // delays the timer but is followed by an Ack, not by eight expiries
      long ms = TimeUnit.NANOSECONDS.toMillis(now - lastProgress);
      LOG.warn("node {}: PEACH2 link to node {} taken down (no acknowledgement for {} ms); {} unacknowledged TLPs "
          + "discarded, probing for it", dll.nodeId, node, ms, replay.totalTlps());
      link.down(true);
      link.startInit();
      return;
    }
    if (now < replayDeadline) {
      armTx(Math.min(replayDeadline, lastProgress + downAfter) - now);
      return;
    }
    if (!wall && !dll.link.mayLose()) {
      // Modelled time, and nothing on the way can be lost or corrupted: the Ack is on its way. The
      // node's clock passed the deadline through host work charged to it (the board shares the
      // host's clock), not through the link's silence; a replay would only put every frame on the
      // link again, ahead of the Acks the partner sends back over it.
      expiries++;
      counters.link(Link.REPLAYS_AVOIDED, 1);
      replayDeadline = now + timeout.current();
      armTx(timeout.current());
      return;
    }
    if (wall && !graced) {
      // host threads, not a wire: the Ack may be waiting behind this timer in the same thread's
      // queue (or socket). Look again after the thread has taken what arrived.
      graced = true;
      armTx(GRACE_NS);
      return;
    }
    graced = false;
    expiries++;
    counters.link(Link.REPLAY_TIMEOUTS, 1);
    if (wall) {
      timeout.backOff(); // until an Ack comes
    }
    replay(now);
  }

  /** An Ack or Nak from the partner's receiver. */
  void onAckNak(int type, int seq) {
    if (!link.flowing()) {
      return;
    }
    counters.link(type == Peach2Dllp.NAK ? Link.NAKS_RECEIVED : Link.ACKS_RECEIVED, 1);
    int reach = (seq - ackdSeq) & SEQ_MASK;
    if (reach > outstandingTlps()) {
      counters.link(Link.DLLP_OUT_OF_RANGE, 1); // PCIe: a Data Link Protocol Error, the DLLP is ignored
      return;
    }
    long now = dll.clock.nowNanos();
    if (reach > 0) {
      int freed = replay.purge(reach);
      ackdSeq = (ackdSeq + freed) & SEQ_MASK;
      if (wall && replay.sampleSentAt() >= 0) {
        timeout.sample(now - replay.sampleSentAt());
      }
      replayNum = 0;
      graced = false;
      expiries = 0;
      lastProgress = now;
      // the oldest frame left may leave later than now (a DMA channel's timeline): time it from then
      replayDeadline = replay.isEmpty() ? 0 : Math.max(now, replay.sentAt(0)) + timeout.current();
      if (!wall && link.state == State.ACTIVE) {
        retimeReplay(now);
      }
    }
    if (type == Peach2Dllp.NAK && link.state == State.ACTIVE) {
      replay(now);
    }
    drainPending();
  }


  /** DL_Down: unacknowledged and held TLPs are discarded; sequence numbers start over. */
  void reset() {
    replay.clear();
    pending.clear(counters);
    nextTransmitSeq = 0;
    ackdSeq = SEQ_MASK;
    replayNum = 0;
    replayDeadline = 0;
    graced = false;
    expiries = 0;
  }

  /** Releases what is held. */
  void close() {
    replay.clear();
    pending.clear(null);
  }
}
