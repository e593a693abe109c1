package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The software layer's meters ({@code verbs4j.tca.verbs.*}, tagged with the node): what TCA Verbs
 * did on top of the board (the board's own transfers, hops, rule violations and interrupts are
 * {@code verbs4j.tca.peach2.*}). Counters are LongAdders read by Micrometer function counters, so
 * counting allocates nothing; the meters are removed when the context closes.
 */
final class TcaCounters implements AutoCloseable {
  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final LongAdder flushes = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder lateTimeouts = new LongAdder();
  private final LongAdder linkBusyTimeouts = new LongAdder();
  private final LongAdder waitTimeouts = new LongAdder();
  private final LongAdder retransmits = new LongAdder();
  private final LongAdder rendezvous = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder outOfSequence = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder qkeyViolations = new LongAdder();
  private final LongAdder rnrNaksSent = new LongAdder();
  private final LongAdder rnrNaksReceived = new LongAdder();
  private final LongAdder packetsSent = new LongAdder();
  private final LongAdder packetsReceived = new LongAdder();
  private final LongAdder proxyServed = new LongAdder();
  private final LongAdder transportRetries = new LongAdder();
  private final LongAdder retryExceeded = new LongAdder();
  private final LongAdder rnrRetryExceeded = new LongAdder();
  private final String node;

  TcaCounters(MeterRegistry registry, int nodeId) {
    this.registry = registry;
    this.node = Integer.toString(nodeId);
    counter("flushes", "work requests completed with WR_FLUSH_ERR", flushes);
    counter("timeouts", "local ACK timer expiries without progress", timeouts);
    counter("timeouts.late", "local ACK timer expiries seen a whole timeout late (a busy host): no retry spent",
        lateTimeouts);
    counter("timeouts.link.busy", "local ACK timer expiries while the PEACH2 link to the peer still replays: restarted",
        linkBusyTimeouts);
    counter("timeouts.waiting", "local ACK timer expiries before the peer's engine had the packets or this side had "
        + "taken what reached it (AckWait): restarted", waitTimeouts);
    counter("retransmits", "messages sent again after a local ACK timeout", retransmits);
    counter("rendezvous", "messages moved by RTS/CTS/FIN with a direct DMA write", rendezvous);
    counter("drops", "packets dropped by a responder (bad state, source or QP)", dropped);
    counter("out.of.sequence", "packets discarded behind an RNR-NAKed message", outOfSequence);
    counter("duplicates", "duplicate requests answered again", duplicates);
    counter("qkey.violations", "UD packets dropped for a Q_Key mismatch", qkeyViolations);
    counter("rnr.naks.sent", "RNR NAKs sent", rnrNaksSent);
    counter("rnr.naks.received", "RNR NAKs received", rnrNaksReceived);
    counter("packets.sent", "packets written into peers' rings", packetsSent);
    counter("packets.received", "packets taken from this node's rings", packetsReceived);
    counter("proxy.served", "READ and atomic requests served by the software proxy", proxyServed);
    counter("retries", "retry_cnt spent: local ACK timeouts followed by a resend", transportRetries);
    counter("retries.exceeded", "work requests ended with RETRY_EXC_ERR", retryExceeded);
    counter("rnr.retries.exceeded", "work requests ended with RNR_RETRY_EXC_ERR", rnrRetryExceeded);
  }

  private void counter(String name, String doc, LongAdder a) {
    meters.add(FunctionCounter.builder("verbs4j.tca.verbs." + name, a, LongAdder::sum).description(doc)
        .tag("node", node).register(registry));
  }

  /**
   * Registers a gauge that is removed with the counters.
   *
   * @param name meter name after {@code verbs4j.tca.verbs.}
   * @param doc description
   * @param value the value
   */
  void gauge(String name, String doc, Supplier<Number> value) {
    meters.add(Gauge.builder("verbs4j.tca.verbs." + name, value).description(doc).tag("node", node)
        .register(registry));
  }

  /**
   * Registers the {@code verbs4j.memory.bytes} gauge (tags {@code node}, {@code component}) of every
   * component of the context's modelled HCA + driver footprint; removed with the counters.
   *
   * @param account the context's account
   */
  void memory(MemoryAccount account) {
    for (MemoryComponent c : MemoryComponent.values()) {
      meters.add(Gauge.builder(MemoryAccount.METER, account, a -> a.bytes(c)).baseUnit("bytes")
          .description("modelled HCA + driver bytes of the live objects").tag("node", node).tag("component", c.tag())
          .register(registry));
    }
  }

  void flushes(long n) {
    flushes.add(n);
  }

  void timeouts(long n) {
    timeouts.add(n);
  }

  void lateTimeouts(long n) {
    lateTimeouts.add(n);
  }

  void linkBusyTimeouts(long n) {
    linkBusyTimeouts.add(n);
  }

  void waitTimeouts(long n) {
    waitTimeouts.add(n);
  }

  /** @return local ACK timer expiries restarted because a host had not run its side yet ({@code AckWait}) */
  public long waitTimeouts() {
    return waitTimeouts.sum();
  }

  void retransmits(long n) {
    retransmits.add(n);
  }

  void rendezvous(long n) {
    rendezvous.add(n);
  }

  void dropped(long n) {
    dropped.add(n);
  }

  void outOfSequence(long n) {
    outOfSequence.add(n);
  }

  void duplicates(long n) {
    duplicates.add(n);
  }

  void qkeyViolations(long n) {
    qkeyViolations.add(n);
  }

  long qkeyViolations() {
    return qkeyViolations.sum();
  }

  void rnrNaksSent(long n) {
    rnrNaksSent.add(n);
  }

  void rnrNaksReceived(long n) {
    rnrNaksReceived.add(n);
  }

  void packetsSent(long n) {
    packetsSent.add(n);
  }

  void packetsReceived(long n) {
    packetsReceived.add(n);
  }

  void proxyServed(long n) {
    proxyServed.add(n);
  }

  void transportRetries(long n) {
    transportRetries.add(n);
  }

  void retryExceeded(long n) {
    retryExceeded.add(n);
  }

  void rnrRetryExceeded(long n) {
    rnrRetryExceeded.add(n);
  }

  /**
   * @param c a port counter
   * @return its value: TCA Verbs' counts under the kernel's hw_counters names. Its responder
   *     never sends a PSN sequence error NAK (PEACH2 neither loses nor reorders; what is behind an
   *     RNR NAK is discarded silently), so rcvd_seq_err stays 0.
   */
  long portCounter(PortCounter c) {
    return switch (c) {
      case RCVD_RNR_ERR -> rnrNaksReceived.sum();
      case SEND_RNR_ERR -> rnrNaksSent.sum();
      case RCVD_SEQ_ERR -> 0;
      case OUT_OF_SEQ_REQUEST -> outOfSequence.sum();
      case DUPLICATE_REQUEST -> duplicates.sum();
      case LOCAL_ACK_TIMEOUT_ERR -> timeouts.sum() - lateTimeouts.sum(); // late ones spend no retry_cnt
      case COMPLETER_RETRY_ERR -> transportRetries.sum();
      case RETRY_EXCEEDED_ERR -> retryExceeded.sum();
      case RETRY_RNR_EXCEEDED_ERR -> rnrRetryExceeded.sum();
    };
  }

  /** @return RNR NAKs sent so far */
  long rnrNaksSent() {
    return rnrNaksSent.sum();
  }

  /** @return rendezvous transfers so far */
  long rendezvous() {
    return rendezvous.sum();
  }

  @Override
  public void close() {
    for (Meter m : meters) {
      registry.remove(m);
    }
    meters.clear();
  }
}
