package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;

/**
 * The receiver of one {@link PcieLink} (PCIe Base Specification 2.0 §3.5.3, variable names as
 * there): NEXT_RCV_SEQ, NAK_SCHEDULED and the AckNak latency timer. It takes TLP frames in
 * sequence, discards a duplicate (and acknowledges again) or a frame out of sequence (one Nak per
 * loss), and acknowledges what it took: in a DLLP of its own when enough TLPs wait or the latency
 * timer runs out, else in the link's next TLP frame ({@link #ackPending}).
 *
 * <p>Every method runs under the link's monitor.
 */
final class LinkReceiver {
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;
  private static final int HALF = DataLinkParams.SEQ_MODULUS / 2;

  private final PcieLink link;
  private final DataLinkLayer dll;
  private final Peach2Counters counters;
  private final DataLinkParams dl;
  private final boolean wall;
  private final long ackDelay;
  private final HostScheduler.Timer ackTimer;
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

  LinkReceiver(PcieLink link, DataLinkLayer dll, boolean wall) {
    this.link = link;
    this.dll = dll;
    this.counters = dll.counters;
    this.dl = dll.params.dataLink();
    this.wall = wall;
    this.ackDelay = dl.ackDelayNs(wall);
    this.ackTimer = dll.scheduler.timer(this::onAckTimer);
  }

  /** See {@link PcieLink#onTlp}: the link is flowing. */
  boolean take(ByteBuf frame, int off, int lcrcAt, int n, long arrival) {
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
        link.onAckNak(Peach2Dllp.type(frame, d), Peach2Dllp.seq(frame, d));
      } else {
        counters.link(Link.BAD_FRAMES, 1);
      }
    }
    return true;
  }

  /** See {@link PcieLink#expects}. */
  boolean expects(int seq) {
    return seq == nextRcvSeq;
  }

  /** See {@link PcieLink#onBadTlp}: the link is flowing. */
  void onBad(long arrival) {
    dllpAt = arrival;
    try {
      nak();
    } finally {
      dllpAt = Long.MIN_VALUE;
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
    synchronized (link) {
      ackTimerScheduled = false;
      if ((ackPending || ackDllpDue) && !dll.closed() && link.flowing()) {
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

  /** @return whether TLPs taken wait for an Ack: the link's next TLP frame may carry it */
  boolean ackPending() {
    return ackPending;
  }

  /** @return the sequence number an Ack sent now acknowledges: the last TLP taken in sequence */
  int lastSeq() {
    return nextRcvSeq - 1;
  }

  /** An Ack for everything taken has gone. */
  void acked() {
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
    link.putAt(f, dllpAt); // the hardware's time (a frame's arrival, an Ack's due time), or now
  }

  /** The partner started a new epoch: its sequence numbers start from 0. */
  void newEpoch() {
    nextRcvSeq = 0;
    nakScheduled = false;
    acked();
  }

  /** DL_Down: everything starts over. */
  void reset() {
    newEpoch();
    ackDllpDue = false;
  }
}
