package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import java.time.Duration;
import org.agrona.concurrent.IdleStrategy;

/**
 * How a {@link VerbsCommunicator} waits between empty progress calls: it spins, then yields, by
 * the runtime's {@code verbs.idle-strategy} numbers ({@link IdleStrategyKey}: none on an
 * oversubscribed host), polling the CQ in between, as the engine threads wait; then, instead of
 * parking blind, it arms the CQ ({@code ibv_req_notify_cq}) and blocks on its completion channel
 * ({@code ibv_get_cq_event}), so the next completion wakes it at once and an idle rank takes no CPU
 * (a provider hands its caller-driven I/O to its own threads before the channel blocks). Every
 * message the communicator waits for ends in a completion on that CQ — a receive, a send slot
 * freed, an RDMA done — so nothing else needs waking.
 *
 * <p>Arming and blocking are two steps: {@link #idle(int)} arms and returns, the caller polls once
 * more (a completion added before the arm is found there, one added after raises the event), and
 * only the next empty round blocks. An Agrona {@link IdleStrategy}: {@code idle(work)} after each
 * progress call, {@link #reset()} after work. One thread; one per CQ.
 */
final class CompletionWait implements IdleStrategy {
  /**
   * Longest single block: only a safety net, since the completion event ends a block; a
   * communicator's deadline is checked between blocks.
   */
  static final Duration MAX_BLOCK = Duration.ofMillis(10);
  /** Longest single block on an oversubscribed host ({@link #maxBlock}). */
  static final Duration MAX_SHARED_BLOCK = Duration.ofSeconds(1);

  /**
   * The longest single block for a rank of {@code host}: {@link #MAX_BLOCK}, or on an oversubscribed
   * host that times the ranks per processor (at most {@link #MAX_SHARED_BLOCK}), so the ranks' safety
   * wake-ups together stay at {@code MAX_BLOCK}'s rate per processor. 1,024 ranks in one JVM on two
   * cores woke 100,000 times a second with nothing to do, and 200 to 400 of their threads were
   * runnable at any moment, taking the cores from the engine.
   *
   * @param host the ranks on this host and its processors
   * @return the longest block
   */
  static Duration maxBlock(HostShare host) {
    if (!host.oversubscribed()) {
      return MAX_BLOCK;
    }
    long ms = MAX_BLOCK.toMillis() * host.localRanks() / host.processors();
    return Duration.ofMillis(Math.min(ms, MAX_SHARED_BLOCK.toMillis()));
  }

  /** Where the wait stands. */
  private enum Phase {
    /** Busy-polling: the caller's own polls drive the provider (lowest latency with cores to spare). */
    SPIN,
    /** Polling with a yield in between. */
    YIELD,
    /** Next empty round arms the CQ. */
    ARM,
    /** Armed and polled once since: next empty round blocks on the channel. */
    BLOCK
  }

  private final CompletionQueue cq;
  private final CompletionChannel channel;
  private final Job job;
  private final int maxSpins;
  private final int maxYields;
  private final Duration block;
  /** The rank's turn when ranks run in {@link Lockstep}, else null. */
  private final Lockstep.Turn turn = Lockstep.current();
  private Phase phase = Phase.SPIN;
  private int spins;
  private int yields;
  private long events;

  /**
   * @param cq the CQ every completion of the communicator goes to, created with {@code channel}
   * @param channel its completion channel
   * @param job the job (its modelled-time steps, when it runs in them)
   * @param numbers spins and yields before blocking
   * @param block longest single block
   */
  CompletionWait(CompletionQueue cq, CompletionChannel channel, Job job, IdleStrategyKey.Backoff numbers, Duration block) {
    this.cq = cq;
    this.channel = channel;
    this.job = job;
    this.maxSpins = numbers.spins();
    this.maxYields = numbers.yields();
    this.block = block;
  }

  @Override
  public void idle(int workCount) {
    if (workCount > 0) {
      reset();
    } else {
      idle();
    }
  }

  @Override
  public void idle() {
    if (turn != null) {
      turn.pass(); // in lockstep nothing moves until the others and the fabric have had their turn
      return;
    }
    if (job.awaitModelledStep()) {
      return; // the job runs in modelled-time steps: nothing moves until the job's next instant
    }
    switch (phase) {
      case SPIN -> {
        if (spins < maxSpins) {
          spins++;
          Thread.onSpinWait();
        } else {
          phase = Phase.YIELD;
          idle();
        }
      }
      case YIELD -> {
        if (yields < maxYields) {
          yields++;
          Thread.yield();
        } else {
          phase = Phase.ARM;
          idle();
        }
      }
      case ARM -> {
        cq.requestNotify(false);
        phase = Phase.BLOCK; // the caller polls once more before anything blocks
      }
      case BLOCK -> {
        if (channel.await(block).isPresent()) {
          cq.ackEvents(1);
          events++;
        }
        phase = Phase.ARM; // one-shot: an event or a timeout both need a new arm after the next poll
      }
      default -> throw new IllegalStateException("phase " + phase);
    }
  }

  @Override
  public void reset() {
    spins = 0;
    yields = 0;
    phase = Phase.SPIN; // an arm still pending raises one event later: the next block takes and acks it
  }

  /** @return completion events taken so far (how often a wait blocked and was woken) */
  long events() {
    return events;
  }

  /** Acknowledges events still queued on the channel (before the CQ is destroyed: {@code ibv_ack_cq_events}). */
  void ackQueuedEvents() {
    while (channel.await(Duration.ZERO).isPresent()) {
      cq.ackEvents(1);
      events++;
    }
  }

  @Override
  public String alias() {
    return "completion-wait";
  }
}
