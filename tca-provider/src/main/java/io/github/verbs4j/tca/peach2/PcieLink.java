package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.tca.peach2.DataLinkLayer.State;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;

/**
 * One link of a board's {@link DataLinkLayer}: the transmitter towards one other board ({@link
 * LinkTransmitter}: sequence numbers, replay buffer, replay timer) and the receiver of what that
 * board sends ({@link LinkReceiver}: Ack/Nak), as PCIe's data link layer keeps them (Base
 * Specification 2.0 §3.5); here, the link's state ({@link State}) with the initialisation
 * handshake that restarts it after it went down.
 *
 * <p>Initialisation (PCIe §3.3.1, with link epochs in place of flow-control credits): a link that
 * comes back up — its board's cable restored, or a link taken down by the link-down timeout and
 * probing — starts a new epoch, resets its sequence numbers to 0 and sends InitFC1 (its epoch and
 * the last epoch it saw from the partner) until the partner's InitFC1 or InitFC2 shows that it saw
 * this epoch; every InitFC1 is answered by an InitFC2. A partner that sees a newer epoch while its
 * own link is up restarts too (the other end lost its state: on the netty fabric a cut cable is
 * seen at one end only). Older epochs (a duplicate or late InitFC) are ignored.
 *
 * <p>Every method runs under this object's monitor, as do the transmitter's and the receiver's.
 */
final class PcieLink {
  private final DataLinkLayer dll;
  private final Peach2Counters counters;
  final int node;
  /** The link's state: read and changed by the transmitter too, under this monitor. */
  State state = State.ACTIVE;
  private boolean gone;
  private final LinkReceiver receiver;
  private final LinkTransmitter transmitter;
  // initialisation
  private int epoch;
  private int peerEpoch;
  private long initInterval;

  PcieLink(DataLinkLayer dll, int node, int hops, boolean cablesUp) {
    this.dll = dll;
    this.counters = dll.counters;
    this.node = node;
    boolean wall = !dll.clock.isModelled();
    this.receiver = new LinkReceiver(this, dll, wall);
    this.transmitter = new LinkTransmitter(this, receiver, dll, hops, wall);
    if (!cablesUp) {
      state = State.DOWN;
    }
  }

  synchronized State state() {
    return state;
  }

  synchronized int unacknowledgedTlps() {
    return transmitter.unacknowledgedTlps();
  }

  /** @return whether TLPs move: the link is active or retraining */
  boolean flowing() {
    return state == State.ACTIVE || state == State.RETRAIN;
  }

  // ================================================================== transmit

  /** See {@link DataLinkLayer#transmit}. */
  synchronized boolean transmit(ByteBuf frame, int tlps, long sendTimeNanos) {
    return transmitter.transmit(frame, tlps, sendTimeNanos);
  }

  /** @return whether a frame is held until the modelled clock reaches its send time (any thread) */
  synchronized boolean holdsFrameAhead() {
    return transmitter.holdsFrameAhead();
  }

  /**
   * Hands a DLLP frame of the receiver to the fabric.
   *
   * @param f the frame
   * @param at the hardware's time it leaves (modelled), or MIN_VALUE for now
   */
  void putAt(ByteBuf f, long at) {
    transmitter.putAt(f, at);
  }

  /** The transmitter's timer: the initialisation's probe, the end of retraining, or the replay timer. */
  void onTxTimer() {
    synchronized (this) {
      transmitter.timerRan();
      if (dll.closed() || state == State.DOWN) {
        return;
      }
      long now = dll.clock.nowNanos();
      switch (state) {
        case INIT -> {
          sendInit(Peach2Dllp.INIT1);
          // probe less often while nobody answers
          initInterval = Math.min(transmitter.timeout().max(), initInterval * 2);
          transmitter.armTx(initInterval);
        }
        case RETRAIN -> transmitter.onRetrainTimer(now);
        default -> transmitter.onReplayTimer(now);
      }
    }
  }

  // ================================================================== receive

  /** An Ack or Nak from the partner's receiver. */
  synchronized void onAckNak(int type, int seq) {
    transmitter.onAckNak(type, seq);
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
    return receiver.take(frame, off, lcrcAt, n, arrival);
  }

  /**
   * @param seq a received TLP frame's sequence number
   * @return whether it is the next expected (only then is its LCRC worth checking)
   */
  synchronized boolean expects(int seq) {
    return receiver.expects(seq);
  }

  /** A malformed frame or a bad LCRC: a Nak, unless one is outstanding. */
  synchronized void onBadTlp(long arrival) {
    if (flowing()) {
      receiver.onBad(arrival);
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
    if (state == State.ACTIVE) {
      transmitter.resendUnacknowledged(dll.clock.nowNanos());
    }
  }

  /** The partner left the fabric: down for good. */
  synchronized void gone() {
    gone = true;
    down(false);
  }

  /** DL_Down: unacknowledged and held TLPs are discarded, both directions start over. */
  void down(boolean count) {
    if (count) {
      counters.link(Link.DOWNS, 1);
    }
    state = State.DOWN;
    reset();
    notifyAll();
  }

  private void reset() {
    transmitter.reset();
    receiver.reset();
  }

  /** DL_Init: a new epoch, sequence numbers from 0, InitFC1 until the partner has seen it. */
  void startInit() {
    epoch = (epoch + 1) & 0xFF;
    state = State.INIT;
    initInterval = transmitter.timeout().min();
    sendInit(Peach2Dllp.INIT1);
    transmitter.armTx(initInterval);
  }

  private void sendInit(int type) {
    ByteBuf f = dll.frames.allocate(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeInitFrame(f, type, epoch, peerEpoch);
    transmitter.put(f, false);
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
      receiver.newEpoch();
    }
    if (type == Peach2Dllp.INIT1) {
      sendInit(Peach2Dllp.INIT2);
    }
    if (state == State.INIT && seen == epoch) {
      state = State.ACTIVE;
      counters.link(Link.INITS, 1);
      transmitter.started(dll.clock.nowNanos());
      transmitter.drainPending();
    }
  }

  /** Releases what is held. */
  synchronized void close() {
    transmitter.close();
    notifyAll();
  }
}
