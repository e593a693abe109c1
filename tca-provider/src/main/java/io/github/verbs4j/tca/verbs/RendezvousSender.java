package io.github.verbs4j.tca.verbs;

/**
 * The requester's side of rendezvous (seed 000 §3.3), the counterpart of {@link RendezvousTarget}:
 * a SEND or WRITE longer than {@code verbs.tca.eager-max} goes as an RTS; the target's CTS says
 * where the data goes; the requester DMA-writes the body there and sends the last {@link #FIN_TAIL}
 * bytes in the FIN. Up to {@link #window()} messages wait for their CTS at once, and nothing that
 * is not an RTS starts while any does (an eager packet would overtake a FIN).
 *
 * <p>Each RTS carries its number among its message's RTSs ({@link SendWqe#rtsSent}) and the CTS
 * echoes it: only the CTS of the latest RTS is used, since after the requester went back the CTS
 * of an earlier try may arrive when the target has taken that try's FIN and let its memory go.
 *
 * <p>{@link Requester} finds the WQEs, runs the timers and completes; this class sends the RTS,
 * judges a CTS, moves the data and sends the FIN. Runs under the QP's lock.
 */
final class RendezvousSender {
  /** Bytes at the end of a rendezvous message that travel in its FIN packet. */
  static final int FIN_TAIL = 8;
  private final TcaQueuePair qp;
  private final TcaContext ctx;
  private final Packet fin = new Packet();
  /** WQEs in {@link SendWqe#WAIT_CTS}. */
  private int awaitingCts;

  RendezvousSender(TcaQueuePair qp) {
    this.qp = qp;
    this.ctx = qp.ctx;
  }

  /** @return messages whose RTS went and whose CTS has not come */
  int awaitingCts() {
    return awaitingCts;
  }

  /** @return rendezvous messages that may wait for their CTS at once: UC's target grants one at a time */
  int window() {
    return qp.reliable() ? RendezvousTarget.WINDOW : 1;
  }

  /**
   * @param w the next WQE to start
   * @return whether it must wait: only further RTSs may go while messages wait for their CTS, and
   *     only a window of them
   */
  boolean holdsBack(SendWqe w) {
    return awaitingCts > 0 && (awaitingCts >= window() || !w.rendezvous(ctx.eagerMax()));
  }

  /**
   * Sends the RTS of {@code w}.
   *
   * @param ch the channel to the target
   * @param out the request's header, filled in but for opcode and RTS number
   * @param w the WQE
   * @param send a SEND (else a WRITE)
   */
  void rts(Channel ch, Packet out, SendWqe w, boolean send) {
    out.opcode = send ? Packet.RTS_SEND : Packet.RTS_WRITE;
    out.value = ++w.rtsSent; // its CTS echoes it
    ch.send(out, null, 0);
    w.state = SendWqe.WAIT_CTS;
    awaitingCts++;
    ctx.counters().rendezvous(1);
  }

  /**
   * @param w the WQE of the CTS's PSN, or null
   * @param p the CTS
   * @return whether the CTS answers the latest RTS of a message waiting for it
   */
  boolean answers(SendWqe w, Packet p) {
    return w != null && w.state == SendWqe.WAIT_CTS && p.value == w.rtsSent;
  }

  /** {@code w} left {@link SendWqe#WAIT_CTS} (its CTS came, it finished, or the requester went back). */
  void left(SendWqe w) {
    if (w.state == SendWqe.WAIT_CTS) {
      awaitingCts--;
    }
  }

  /** The send queue was flushed or reset: nothing waits for a CTS. */
  void flushed() {
    awaitingCts = 0;
  }

  /** DMA-writes the body of {@code w} (all but the FIN's tail) where the CTS {@code p} says. */
  void writeBody(SendWqe w, Packet p) {
    int total = (int) w.total;
    ctx.dmaOut(w, p.addr, total - Math.min(total, FIN_TAIL));
  }

  /**
   * Sends the FIN of {@code w} with the last bytes, so the target's proxy makes them visible (last
   * byte last) in the same step that completes the message and acknowledges it.
   *
   * @param ch the channel to the target
   * @param w the WQE
   * @param destQpn the target QP
   */
  void fin(Channel ch, SendWqe w, int destQpn) {
    int total = (int) w.total;
    int tail = Math.min(total, FIN_TAIL);
    fin.clear();
    fin.opcode = Packet.FIN;
    fin.srcQpn = qp.qpNum();
    fin.dstQpn = destQpn;
    fin.psn = w.psn;
    fin.length = total;
    fin.payloadLength = tail;
    if (qp.reliable()) {
      fin.flags |= Packet.F_ACK_REQ;
    }
    w.seq = ch.send(fin, ctx, w, total - tail);
  }
}
