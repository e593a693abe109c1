package io.github.verbs4j.ib.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The device's event counters, counted where the decision is made (a duplicate where it is
 * detected, a CRC drop where the check fails). Engines increment them under the device's agent
 * lock with a plain read and a release store, so counting costs no atomic instruction and
 * allocates nothing; metrics and tests read them from any thread.
 */
public final class IbCounters {
  /** One counter: its Micrometer name and, for counters that share a name, a tag. */
  public enum Counter {
    /** Packets handed to the port. */
    PACKETS_SENT("verbs4j.ib.packets", "direction", "sent"),
    /** Packets received and accepted by the header checks. */
    PACKETS_RECEIVED("verbs4j.ib.packets", "direction", "received"),
    /** Bytes handed to the port (whole packets). */
    BYTES_SENT("verbs4j.ib.bytes", "direction", "sent"),
    /** Bytes received (whole packets). */
    BYTES_RECEIVED("verbs4j.ib.bytes", "direction", "received"),
    /** Retry sequences started by the requester (timeout, PSN-sequence NAK, lost response, RNR timer). */
    RETRANSMITS("verbs4j.ib.retransmits", null, null),
    /** Request packets sent again by a retry. */
    RETRANSMITTED_PACKETS("verbs4j.ib.retransmitted.packets", null, null),
    /** Local ACK timeouts that fired with packets outstanding. */
    TIMEOUTS("verbs4j.ib.timeouts", null, null),
    /** Local ACK timeouts the engine ran a whole timeout late (a busy host): resent, no retry spent. */
    LATE_TIMEOUTS("verbs4j.ib.timeouts.late", null, null),
    /**
     * Local ACK timeouts that fired while packets to the destination had not reached its engine
     * yet (queued on this host, in socket buffers or the peer's ring, being decoded by the peer, or
     * not yet taken by its engine): re-armed, no retry spent ({@code AckWait}, at most {@code
     * AckWait.BUDGET} in a row without movement).
     */
    QUEUED_TIMEOUTS("verbs4j.ib.timeouts.queued", null, null),
    /**
     * Local ACK timeouts that fired while frames that reached this node still waited in the
     * fabric's own inbound queues (the ACK may be among them): re-armed, no retry spent ({@code
     * AckWait}).
     */
    UNHEARD_TIMEOUTS("verbs4j.ib.timeouts.unheard", null, null),
    /**
     * Transport retries: each {@code retry_cnt} a requester spent (a local ACK timeout, a PSN
     * sequence error NAK, a lost READ or atomic response). RNR retries are not among them.
     */
    TRANSPORT_RETRIES("verbs4j.ib.retries", "kind", "transport"),
    /** RNR retries: each RNR wait a requester started (one {@code rnr_retry} unless it is 7). */
    RNR_RETRIES("verbs4j.ib.retries", "kind", "rnr"),
    /** Send WQEs completed with RETRY_EXC_ERR. */
    RETRY_EXCEEDED("verbs4j.ib.retries.exceeded", "kind", "transport"),
    /** Send WQEs completed with RNR_RETRY_EXC_ERR. */
    RNR_RETRY_EXCEEDED("verbs4j.ib.retries.exceeded", "kind", "rnr"),
    /** RNR NAKs sent by responders. */
    RNR_NAKS_SENT("verbs4j.ib.rnr.naks", "direction", "sent"),
    /** RNR NAKs received by completers. */
    RNR_NAKS_RECEIVED("verbs4j.ib.rnr.naks", "direction", "received"),
    /** PSN sequence error NAKs sent. */
    SEQ_NAKS_SENT("verbs4j.ib.seq.naks", "direction", "sent"),
    /** PSN sequence error NAKs received. */
    SEQ_NAKS_RECEIVED("verbs4j.ib.seq.naks", "direction", "received"),
    /**
     * PSN sequence error NAKs that started no retry: one was already started for that PSN, or the
     * requester is waiting out an RNR NAK and will send from the NAKed PSN anyway.
     */
    SEQ_NAKS_IGNORED("verbs4j.ib.seq.naks.ignored", null, null),
    /** Seed 002: stop requests responders sent (a request found its SRQ empty and was dropped). */
    SRQ_STOPS_SENT("verbs4j.ib.srq.stops", "direction", "sent"),
    /** Seed 002: stop requests requesters received (each holds a send stream; spends no retry). */
    SRQ_STOPS_RECEIVED("verbs4j.ib.srq.stops", "direction", "received"),
    /** Seed 002: resend requests the device sent after polling receives in an SRQ. */
    SRQ_RESENDS_SENT("verbs4j.ib.srq.resends", "direction", "sent"),
    /** Seed 002: resend requests requesters received and resumed on. */
    SRQ_RESENDS_RECEIVED("verbs4j.ib.srq.resends", "direction", "received"),
    /** Seed 002: resend requests that named no stopped stream (late or duplicate): ignored. */
    SRQ_RESENDS_IGNORED("verbs4j.ib.srq.resends.ignored", null, null),
    /** Seed 002: stopped requesters whose stop timer sent the stopped message alone as a probe. */
    SRQ_STOP_PROBES("verbs4j.ib.srq.stop.probes", null, null),
    /** Seed 002: polls of an SRQ with stopped senders (every t_poll until receives are found). */
    SRQ_POLLS("verbs4j.ib.srq.polls", null, null),
    /** Seed 002: senders that did not fit an SRQ's retransmission table and were RNR NAKed instead. */
    SRQ_TABLE_FULL("verbs4j.ib.srq.table.full", null, null),
    /** Duplicate requests detected by responders (re-ACKed or replayed, never re-executed). */
    DUPLICATE_REQUESTS("verbs4j.ib.duplicate.requests", null, null),
    /** READ and atomic replies answered again from the replay cache. */
    REPLAYS("verbs4j.ib.replays", null, null),
    /** ACKs sent. */
    ACKS_SENT("verbs4j.ib.acks", "kind", "sent"),
    /** ACKs saved because a later one in the same duty cycle covered them. */
    ACKS_COALESCED("verbs4j.ib.acks", "kind", "coalesced"),
    /** Held ACKs that left with another packet to the same node (one frame instead of two). */
    ACKS_BUNDLED("verbs4j.ib.acks", "kind", "bundled"),
    /** Held ACKs that left alone when their hold ran out. */
    ACK_HOLDS_EXPIRED("verbs4j.ib.acks", "kind", "hold_expired"),
    /** Work completions flushed (WR_FLUSH_ERR). */
    FLUSHES("verbs4j.ib.flushes", null, null),
    /** Packets whose ICRC did not match. */
    CRC_DROPS("verbs4j.ib.crc.drops", null, null),
    /** Malformed packets (length, version, pad, unknown opcode). */
    DROP_MALFORMED("verbs4j.ib.drops", "reason", "malformed"),
    /** Packets for a QP number that does not exist. */
    DROP_UNKNOWN_QP("verbs4j.ib.drops", "reason", "unknown_qp"),
    /** Packets whose transport does not match the QP type. */
    DROP_BAD_TRANSPORT("verbs4j.ib.drops", "reason", "bad_transport"),
    /** Packets from a LID other than the connected peer's. */
    DROP_BAD_SOURCE("verbs4j.ib.drops", "reason", "bad_source"),
    /** Packets for a QP in a state that does not accept them. */
    DROP_BAD_STATE("verbs4j.ib.drops", "reason", "bad_state"),
    /** Packets with a foreign P_Key. */
    DROP_BAD_PKEY("verbs4j.ib.drops", "reason", "bad_pkey"),
    /** UD packets whose Q_Key differs from the QP's (IBTA C10-15). */
    DROP_QKEY_VIOLATION("verbs4j.ib.drops", "reason", "qkey_violation"),
    /** DC requests with a wrong DC access key. */
    DROP_DC_KEY_VIOLATION("verbs4j.ib.drops", "reason", "dc_key_violation"),
    /** DC requests with no responder context for their epoch. */
    DROP_DC_NO_CONTEXT("verbs4j.ib.drops", "reason", "dc_no_context"),
    /** Requests dropped after a PSN gap (the one NAK was already sent), or by UC resync. */
    DROP_OUT_OF_SEQUENCE("verbs4j.ib.drops", "reason", "out_of_sequence"),
    /**
     * Requests dropped silently behind an RNR-NAKed one (IBA 9.7.5.2.8): the requester sends them
     * again from the NAKed PSN once its RNR timer expires.
     */
    DROP_BEHIND_RNR("verbs4j.ib.drops", "reason", "behind_rnr"),
    /** Requests dropped silently behind a stopped one (seed 002): resent from the stopped PSN. */
    DROP_BEHIND_STOP("verbs4j.ib.drops", "reason", "behind_stop"),
    /** Responses older than the completer's PSN, or for no outstanding request. */
    DROP_STALE_RESPONSE("verbs4j.ib.drops", "reason", "stale_response"),
    /** UC/UD messages dropped: no receive WQE, or a responder error. */
    DROP_NO_RECEIVE("verbs4j.ib.drops", "reason", "no_receive"),
    /** Packets dropped because the inbound queue was full. */
    DROP_INBOUND_FULL("verbs4j.ib.drops", "reason", "inbound_full"),
    /** Packets the port refused (dead LID, back-pressure). */
    DROP_PORT_REFUSED("verbs4j.ib.drops", "reason", "port_refused"),
    /** Engine exceptions caught per QP (the QP goes to ERR with QP_FATAL). */
    ENGINE_FAULTS("verbs4j.ib.engine.faults", null, null);

    private final String meter;
    private final String tagKey;
    private final String tagValue;

    Counter(String meter, String tagKey, String tagValue) {
      this.meter = meter;
      this.tagKey = tagKey;
      this.tagValue = tagValue;
    }

    /** @return the Micrometer meter name */
    public String meter() {
      return meter;
    }

    /** @return the tag key, or null */
    public String tagKey() {
      return tagKey;
    }

    /** @return the tag value, or null */
    public String tagValue() {
      return tagValue;
    }
  }

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final Counter[] ALL = Counter.values();
  private final long[] values = new long[ALL.length];

  void inc(Counter c) {
    add(c, 1);
  }

  /** Counts from a thread other than the engine's (only for counters the engine never touches). */
  void incConcurrent(Counter c) {
    LONGS.getAndAdd(values, c.ordinal(), 1L);
  }

  void add(Counter c, long n) {
    int i = c.ordinal();
    LONGS.setRelease(values, i, values[i] + n);
  }

  /**
   * @param c a counter
   * @return its value
   */
  public long get(Counter c) {
    return (long) LONGS.getAcquire(values, c.ordinal());
  }
}
