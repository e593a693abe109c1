package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.tca.peach2.DataLinkLayer.State;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One link of a board's {@link DataLinkLayer}: the transmitter towards one other board and the
 * receiver of what that board sends, as PCIe's data link layer keeps them (Base Specification 2.0
 * §3.5, variable names as there): NEXT_TRANSMIT_SEQ, ACKD_SEQ, the replay buffer, REPLAY_NUM and
 * the replay timer; NEXT_RCV_SEQ, NAK_SCHEDULED and the AckNak latency timer; and the link's state
 * ({@link State}) with the initialisation handshake that restarts it after it went down.
 *
 * <p>Initialisation (PCIe §3.3.1, with link epochs in place of flow-control credits): a link that
 * comes back up — its board's cable restored, or a link taken down by the link-down timeout and
 * probing — starts a new epoch, resets its sequence numbers to 0 and sends InitFC1 (its epoch and
 * the last epoch it saw from the partner) until the partner's InitFC1 or InitFC2 shows that it saw
 * this epoch; every InitFC1 is answered by an InitFC2. A partner that sees a newer epoch while its
 * own link is up restarts too (the other end lost its state: on the netty fabric a cut cable is
 * seen at one end only). Older epochs (a duplicate or late InitFC) are ignored.
 *
 * <p>Every method runs under this object's monitor.
 */
final class PcieLink {
  private static final Logger LOG = LoggerFactory.getLogger(PcieLink.class);
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;
  private static final int HALF = DataLinkParams.SEQ_MODULUS / 2;
  private static final long WAIT_SLICE_MS = 1;
  /** Wall clock: how long an expired replay timer waits for an Ack queued behind it (a yield). */
  private static final long GRACE_NS = 20_000;

  private final DataLinkLayer dll;
  private final Peach2Counters counters;
  private final DataLinkParams dl;
  final int node;
  private final int hops;
  private final boolean wall;
  private final long ackDelay;
  private final long downAfter;
  private final ReplayBuffer replay;
  private final HeldFrames pending;
  private final CRC32 txCrc = new CRC32();
  private final HostScheduler.Timer txTimer;
  private final HostScheduler.Timer ackTimer;
  private State state = State.ACTIVE;
  private boolean gone;
  // transmitter
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
  // receiver
  private int nextRcvSeq;
  private boolean nakScheduled;
  private boolean ackPending;
  // a duplicate arrived: the partner missed our Acks, so the next Ack goes in a DLLP of its own
  private boolean ackDllpDue;
  private int unackedTlps;
  private boolean ackTimerScheduled;
  private long ackDue; // modelled: when the scheduled Ack leaves
  // modelled: when a DLLP being sent leaves (the arrival it answers, an Ack's due time); MIN = now
  private long dllpAt = Long.MIN_VALUE;
  // initialisation
  private int epoch;
  private int peerEpoch;
  private long initInterval;

  PcieLink(DataLinkLayer dll, int node, int hops, boolean cablesUp) {
    this.dll = dll;
    this.counters = dll.counters;
    this.dl = dll.params.dataLink();
    this.node = node;
    this.hops = hops;
    this.wall = !dll.clock.isModelled();
    long minTimeout = dl.replayTimeoutNs(dll.params, hops, wall);
    this.ackDelay = dl.ackDelayNs(wall);
    this.downAfter = dl.linkDownNs(wall);
    this.timeout = new ReplayTimeout(minTimeout, wall ? dl.wallMaxReplayTimeoutNs() : downAfter / 8);
    this.replay = new ReplayBuffer(dl.replayBufferTlps());
    this.pending = new HeldFrames(dll, this::releaseDue);
    this.txTimer = dll.scheduler.timer(this::onTxTimer);
    this.ackTimer = dll.scheduler.timer(this::onAckTimer);
    if (!cablesUp) {
      state = State.DOWN;
    }
  }

  synchronized State state() {
    return state;
  }

  synchronized int unacknowledgedTlps() {
    return replay.totalTlps();
  }

  private int outstandingTlps() {
    return (nextTransmitSeq - 1 - ackdSeq) & SEQ_MASK;
  }

  private boolean full(int tlps) {
    return !replay.hasRoom(tlps)
        || outstandingTlps() + tlps >= DataLinkParams.MAX_OUTSTANDING_TLPS && !replay.isEmpty();
  }

  private boolean flowing() {
    return state == State.ACTIVE || state == State.RETRAIN;
  }

  // ================================================================== transmit

  // The modelled send time of the first transmission in progress (a DMA channel's timeline), or
  // MIN_VALUE: replays, DLLPs and frames that waited for room leave at the clock's now.
  private long sendAt = Long.MIN_VALUE;
  private long lastSendAt = Long.MIN_VALUE; // when the last first transmission left (modelled)

  /** See {@link DataLinkLayer#transmit}. */
  synchronized boolean transmit(ByteBuf frame, int tlps, long sendTimeNanos) {
    if (flowing() && mustWait(tlps) && dll.scheduler.canWait() && !dll.closed()) {
      counters.link(Link.STALLS, 1);
      waiters++;
      try {
        while (flowing() && mustWait(tlps) && !dll.closed()) {
          wait(WAIT_SLICE_MS);
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
    if (dll.closed() || state == State.DOWN) {
      return drop(frame, dll.closed() ? "closed" : "link_down");
    }
    boolean ahead = pending.ahead(sendTimeNanos);
    if (state == State.INIT || state == State.RETRAIN || !pending.isEmpty() || full(tlps) || ahead) {
      // held (HeldFrames); while initialising, at most a replay buffer's worth. What the link sends
      // meanwhile (Acks, replays) is not stamped behind data of a DMA timeline that has not left.
      if (state == State.INIT && pending.tlps() + tlps > dl.replayBufferTlps()) {
        return drop(frame, "link_init");
      }
      boolean first = pending.isEmpty();
      pending.add(frame, tlps, sendTimeNanos);
      if (first && ahead && state == State.ACTIVE) {
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
    if (state == State.RETRAIN) {
      return true;
    }
    return pending.isEmpty() ? full(tlps) : !pending.headAhead();
  }

  /** @return whether a frame is held until the modelled clock reaches its send time (any thread) */
  synchronized boolean holdsFrameAhead() {
    return pending.headAhead();
  }

  /** The clock reached the first held frame's send time: it and what is due behind it leave. */
  private synchronized void releaseDue() {
    pending.released();
    if (!dll.closed()) {
      drainPending();
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
    if (ackPending && frame.writableBytes() >= LinkFrame.DLLP_TRAILER) {
      Peach2Dllp.write(frame, frame.writerIndex(), Peach2Dllp.ACK, nextRcvSeq - 1);
      frame.writerIndex(frame.writerIndex() + LinkFrame.DLLP_TRAILER);
      acked();
      counters.link(Link.ACKS_SHARED, 1);
    }
    put(sent, !checked);
    if (replayDeadline == 0) {
      replayDeadline = now + timeout.current();
      armTx(replayDeadline - clockNow);
    }
  }

  /** Hands a frame to the fabric and counts it. */
  private void put(ByteBuf frame, boolean unchecked) {
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

  private void armTx(long delay) {
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
      state = State.RETRAIN;
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
  private void drainPending() {
    ByteBuf f;
    while (state == State.ACTIVE && (f = pending.peek()) != null) {
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
      notifyAll();
    }
  }

  private void onTxTimer() {
    synchronized (this) {
      txTimerScheduled = false;
      if (dll.closed() || state == State.DOWN) {
        return;
      }
      long now = dll.clock.nowNanos();
      switch (state) {
        case INIT -> {
          sendInit(Peach2Dllp.INIT1);
          initInterval = Math.min(timeout.max(), initInterval * 2); // probe less often while nobody answers
          armTx(initInterval);
        }
        case RETRAIN -> {
          if (now < retrainEnd) {
            armTx(retrainEnd - now);
            return;
          }
          state = State.ACTIVE;
          resend(now);
          drainPending();
        }
        default -> onReplayTimer(now);
      }
    }
  }

  private void onReplayTimer(long now) {
    if (replayDeadline == 0) {
      return;
    }
    if (now - lastProgress >= downAfter && expiries >= 2 * DataLinkParams.REPLAY_NUM_ROLLOVER) {
      // long enough, and tried often enough: a pause of the whole process (a garbage collection)
      // delays the timer but is followed by an Ack, not by eight expiries
      long ms = TimeUnit.NANOSECONDS.toMillis(now - lastProgress);
      LOG.warn("node {}: PEACH2 link to node {} taken down (no acknowledgement for {} ms); {} unacknowledged TLPs "
          + "discarded, probing for it", dll.nodeId, node, ms, replay.totalTlps());
      down(true);
      startInit();
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

  // ================================================================== receive

  /** An Ack or Nak from the partner's receiver. */
  synchronized void onAckNak(int type, int seq) {
    if (!flowing()) {
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
      if (!wall && state == State.ACTIVE) {
        retimeReplay(now);
      }
    }
    if (type == Peach2Dllp.NAK && state == State.ACTIVE) {
      replay(now);
    }
    drainPending();
  }

  /**
   * A TLP frame, its LCRC checked if it is the next in sequence: taken then, else discarded as a
   * duplicate (acknowledged again) or as out of sequence (Nak).
   *
   * @return whether to deliver it
   */
  synchronized boolean onTlp(ByteBuf frame, int off, int lcrcAt, int n, long arrival) {
    if (state == State.DOWN || state == State.INIT) {
      counters.drop(state == State.DOWN ? "link_down" : "link_init");
      return false;
    }
    dllpAt = arrival;
    try {
      return takeTlp(frame, off, lcrcAt, n, arrival);
    } finally {
      dllpAt = Long.MIN_VALUE;
    }
  }

  private boolean takeTlp(ByteBuf frame, int off, int lcrcAt, int n, long arrival) {
    int seq = LinkFrame.seq(frame, off);
    if (seq != nextRcvSeq) {
      if (((nextRcvSeq - 1 - seq) & SEQ_MASK) < HALF) {
        counters.link(Link.DUPLICATES, 1); // PCIe: discard, and schedule an Ack DLLP
        ackDllpDue = true;
        ackLater(arrival);
      } else {
        counters.link(Link.OUT_OF_SEQUENCE, 1);
        nak();
      }
      return false;
    }
    int tlps = dll.tlps(frame, off + LinkFrame.BODY_OFFSET);
    nextRcvSeq = (seq + tlps) & SEQ_MASK;
    nakScheduled = false;
    unackedTlps += tlps;
    if (unackedTlps >= dl.ackCoalesceTlps()) {
      sendDllp(Peach2Dllp.ACK);
    } else {
      ackLater(arrival);
    }
    int d = off + lcrcAt + LinkFrame.LCRC_LENGTH;
    if (n - (lcrcAt + LinkFrame.LCRC_LENGTH) == LinkFrame.DLLP_TRAILER) {
      // an Ack sharing the frame; only a frame taken in sequence is fresh enough to trust it
      if (Peach2Dllp.check(frame, d) && Peach2Dllp.type(frame, d) <= Peach2Dllp.NAK) {
        onAckNak(Peach2Dllp.type(frame, d), Peach2Dllp.seq(frame, d));
      } else {
        counters.link(Link.BAD_FRAMES, 1);
      }
    }
    return true;
  }

  /**
   * @param seq a received TLP frame's sequence number
   * @return whether it is the next expected (only then is its LCRC worth checking)
   */
  synchronized boolean expects(int seq) {
    return seq == nextRcvSeq;
  }

  /** A malformed frame or a bad LCRC: a Nak, unless one is outstanding. */
  synchronized void onBadTlp(long arrival) {
    if (flowing()) {
      dllpAt = arrival;
      try {
        nak();
      } finally {
        dllpAt = Long.MIN_VALUE;
      }
    }
  }

  /**
   * Schedules an Ack within the AckNak latency of {@code arrival} (modelled; MIN_VALUE = now). The
   * link hardware keeps its own time: host work charged to the node's clock meanwhile does not
   * delay the Ack, which leaves at its due time even if its timer runs later.
   */
  private void ackLater(long arrival) {
    ackPending = true;
    if (!ackTimerScheduled && !dll.closed()) {
      ackTimerScheduled = true;
      long now = dll.clock.nowNanos();
      ackDue = (wall || arrival == Long.MIN_VALUE ? now : arrival) + ackDelay;
      ackTimer.arm(wall ? ackDelay : Math.max(0, ackDue - now));
    }
  }

  private void onAckTimer() {
    synchronized (this) {
      ackTimerScheduled = false;
      if ((ackPending || ackDllpDue) && !dll.closed() && flowing()) {
        dllpAt = wall ? Long.MIN_VALUE : ackDue;
        try {
          sendDllp(Peach2Dllp.ACK);
        } finally {
          dllpAt = Long.MIN_VALUE;
        }
      }
    }
  }

  /** One Nak per loss: none again until the expected frame arrives (PCIe NAK_SCHEDULED). */
  private void nak() {
    if (!nakScheduled) {
      nakScheduled = true;
      sendDllp(Peach2Dllp.NAK);
    }
  }

  private void acked() {
    ackPending = false;
    unackedTlps = 0;
  }

  /** An Ack or Nak in a frame of its own, for everything up to the last TLP received in sequence. */
  private void sendDllp(int type) {
    ByteBuf f = dll.frames.allocate(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeDllpFrame(LinkFrame.raw(f), type, nextRcvSeq - 1);
    acked();
    ackDllpDue = false;
    counters.link(type == Peach2Dllp.NAK ? Link.NAKS_SENT : Link.ACKS_SENT, 1);
    long saved = sendAt;
    sendAt = dllpAt; // the hardware's time (a frame's arrival, an Ack's due time), or now
    try {
      put(f, false);
    } finally {
      sendAt = saved;
    }
  }

  // ================================================================== link state

  /** The board's cables were cut (a physical link down: DL_Down at once). */
  synchronized void cableDown() {
    if (state != State.DOWN) {
      down(true);
    }
  }

  /** The board's cables are back: initialise again (unless the partner left the fabric). */
  synchronized void cableUp() {
    if (state == State.DOWN && !gone) {
      startInit();
    }
  }

  /**
   * A board that may lie on this link's route left with what it was forwarding: send again what is
   * unacknowledged (a link that cannot lose, modelled and fault-free, has no replay timer).
   */
  synchronized void routeLost() {
    if (state == State.ACTIVE && !replay.isEmpty()) {
      resend(dll.clock.nowNanos());
    }
  }

  /** The partner left the fabric: down for good. */
  synchronized void gone() {
    gone = true;
    down(false);
  }

  /** DL_Down: unacknowledged and held TLPs are discarded, both directions start over. */
  private void down(boolean count) {
    if (count) {
      counters.link(Link.DOWNS, 1);
    }
    state = State.DOWN;
    reset();
    notifyAll();
  }

  private void reset() {
    replay.clear();
    pending.clear(counters);
    nextTransmitSeq = 0;
    ackdSeq = SEQ_MASK;
    replayNum = 0;
    replayDeadline = 0;
    graced = false;
    expiries = 0;
    nextRcvSeq = 0;
    nakScheduled = false;
    acked();
    ackDllpDue = false;
  }

  /** DL_Init: a new epoch, sequence numbers from 0, InitFC1 until the partner has seen it. */
  private void startInit() {
    epoch = (epoch + 1) & 0xFF;
    state = State.INIT;
    initInterval = timeout.min();
    sendInit(Peach2Dllp.INIT1);
    armTx(initInterval);
  }

  private void sendInit(int type) {
    ByteBuf f = dll.frames.allocate(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeInitFrame(f, type, epoch, peerEpoch);
    put(f, false);
  }

  /** An InitFC1 or InitFC2 from the partner. */
  synchronized void onInit(int type, int partnerEpoch, int seen) {
    if (state == State.DOWN) {
      return; // our cable is cut (or the partner left): nothing is received
    }
    int ahead = (partnerEpoch - peerEpoch) & 0xFF;
    if (ahead >= 128) {
      return; // an older epoch's InitFC, late or duplicated
    }
    if (ahead > 0) {
      if (state != State.INIT) {
        // the partner started over (it lost its state): so must this end
        reset();
        peerEpoch = partnerEpoch;
        startInit();
      }
      peerEpoch = partnerEpoch;
      nextRcvSeq = 0;
      nakScheduled = false;
      acked();
    }
    if (type == Peach2Dllp.INIT1) {
      sendInit(Peach2Dllp.INIT2);
    }
    if (state == State.INIT && seen == epoch) {
      state = State.ACTIVE;
      counters.link(Link.INITS, 1);
      lastProgress = dll.clock.nowNanos();
      drainPending();
    }
  }

  /** Releases what is held. */
  synchronized void close() {
    replay.clear();
    pending.clear(null);
    notifyAll();
  }
}
