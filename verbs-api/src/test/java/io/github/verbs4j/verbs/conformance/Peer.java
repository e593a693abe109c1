package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WorkCompletion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.locks.LockSupport;

/**
 * One rank of a conformance job, handed to every scenario body: its {@link Context}, its rank, the
 * out-of-band channel to the other rank, and bounded waits. Nothing here waits forever: every wait
 * is bounded by the environment's {@link KitEnvironment#timeout()} (or the duration given), and
 * stops at once with {@link KitAbortedException} when the other rank has failed.
 *
 * <pre>{@code
 * public void sendBody(Peer p) {
 *   try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
 *     if (p.rank() == 1) {
 *       r.postRecv(1);
 *     }
 *     p.barrier("recv-posted");
 *     if (p.rank() == 0) {
 *       r.qp().postSend(r.send(1, 1024));
 *       KitAssertions.assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
 *     } else {
 *       KitAssertions.assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Names given to {@link #exchange} and {@link #barrier} are used once per job (the harness
 * prefixes them with the job id); both ranks must use the same names in the same order. Fixtures
 * draw their names from {@link #uniqueName(String)}, which is deterministic per rank, so two ranks
 * that create fixtures in the same order agree on them.
 */
public final class Peer {
  /** How long "nothing arrives" checks watch: long against the provider's latency, short for the kit. */
  public static final Duration QUIET = Duration.ofMillis(250);

  private static final Duration SLICE = Duration.ofMillis(200);

  private final KitEnvironment environment;
  private final String jobId;
  private final int rank;
  private final int size;
  private final Context ctx;
  private final Job job;
  private final AbortSignal abort;
  private int names;
  private boolean endPublished;
  private boolean closedEarly;

  Peer(KitEnvironment environment, String jobId, int rank, int size, Context ctx, AbortSignal abort) {
    this.environment = environment;
    this.jobId = jobId;
    this.rank = rank;
    this.size = size;
    this.ctx = ctx;
    this.job = ctx.job();
    this.abort = abort;
  }

  /** @return this rank, 0-based (rank 0 is the client in pyverbs terms) */
  public int rank() {
    return rank;
  }

  /** @return the number of ranks: 1 for one-sided scenarios, 2 for two-sided, more for {@code spmd} ones */
  public int size() {
    return size;
  }

  /**
   * The other rank of a two-sided job.
   *
   * @return {@code 1 - rank()}
   * @throws IllegalStateException in a one-sided job
   */
  public int other() {
    if (size != 2) {
      throw new IllegalStateException("other(): this is a one-sided job (size " + size + ")");
    }
    return 1 - rank;
  }

  /** @return whether this is rank 0 */
  public boolean isClient() {
    return rank == 0;
  }

  /** @return this rank's open device */
  public Context ctx() {
    return ctx;
  }

  /** @return {@code ctx().job()}, the out-of-band channel */
  public Job job() {
    return job;
  }

  /** @return the job id (unique per test invocation) */
  public String jobId() {
    return jobId;
  }

  /** @return the environment the kit runs in */
  public KitEnvironment environment() {
    return environment;
  }

  /** @return the hang guard for every wait */
  public Duration timeout() {
    return environment.timeout();
  }

  /**
   * A name for an exchange, unique within this rank's body and equal on both ranks when they call
   * it in the same order.
   *
   * @param prefix what it is for, e.g. {@code rc}
   * @return e.g. {@code rc#3}
   */
  public String uniqueName(String prefix) {
    return prefix + "#" + (++names);
  }

  /**
   * Fails with {@link KitAbortedException} if the other rank has failed.
   *
   * @throws KitAbortedException if the job was aborted
   */
  public void checkAborted() {
    abort.check(rank);
  }

  private String key(String name, int r) {
    return "verbs4j.kit/" + jobId + "/" + name + "/" + r;
  }

  /**
   * Publishes this rank's values under {@code name} and returns the other rank's (a two-rank job).
   *
   * @param name used once per job
   * @param mine this rank's values
   * @return the other rank's values, in its order
   * @throws AssertionError if the other rank does not publish within the timeout
   */
  public long[] exchange(String name, long... mine) {
    int other = other();
    publish(name, mine);
    return fetch(name, other);
  }

  /**
   * Publishes this rank's values under {@code name} and returns every rank's, this one's included
   * (an allgather, for jobs of any size).
   *
   * @param name used once per job
   * @param mine this rank's values
   * @return index r holds rank r's values, in its order
   * @throws AssertionError if a rank does not publish within the timeout
   */
  public long[][] allGather(String name, long... mine) {
    publish(name, mine);
    long[][] all = new long[size][];
    for (int r = 0; r < size; r++) {
      all[r] = r == rank ? mine.clone() : fetch(name, r);
    }
    return all;
  }

  private void publish(String name, long[] mine) {
    StringJoiner j = new StringJoiner(",");
    for (long v : mine) {
      j.add(Long.toHexString(v));
    }
    job.put(key(name, rank), j.toString());
  }

  private long[] fetch(String name, int from) {
    String theirs = await(key(name, from), from, "exchange '" + name + "'");
    if (theirs.isEmpty()) {
      return new long[0];
    }
    String[] parts = theirs.split(",");
    long[] out = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      out[i] = Long.parseUnsignedLong(parts[i], 16);
    }
    return out;
  }

  /**
   * Waits until every rank has reached the barrier {@code name} (a no-op in a one-sided job).
   *
   * @param name used once per job
   */
  public void barrier(String name) {
    if (size == 1) {
      return;
    }
    job.put(key("barrier/" + name, rank), "1");
    for (int r = 0; r < size; r++) {
      if (r != rank) {
        await(key("barrier/" + name, r), r, "barrier '" + name + "'");
      }
    }
  }

  private String await(String key, int from, String what) {
    long deadline = System.nanoTime() + timeout().toNanos();
    while (true) {
      checkAborted();
      try {
        return new String(job.get(key, SLICE), StandardCharsets.UTF_8);
      } catch (VerbsException e) {
        if (e.errno() != Errno.ETIMEDOUT) {
          throw e;
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("rank " + rank + ": " + what + " timed out after " + timeout()
            + " waiting for rank " + from);
      }
    }
  }

  /**
   * Polls {@code cq} until {@code n} completions arrived, with back-off, never longer than the
   * environment's timeout.
   *
   * @param cq the CQ
   * @param n how many
   * @return copies of the completions, in polling order
   * @throws AssertionError naming how many arrived (and which) if fewer than {@code n} came
   */
  public List<WorkCompletion> pollUntil(CompletionQueue cq, int n) {
    return pollUntil(cq, n, timeout());
  }

  /**
   * Polls {@code cq} until {@code n} completions arrived or {@code timeout} passed.
   *
   * @param cq the CQ
   * @param n how many
   * @param timeout the bound
   * @return copies of the completions, in polling order
   * @throws AssertionError naming how many arrived (and which) if fewer than {@code n} came
   */
  public List<WorkCompletion> pollUntil(CompletionQueue cq, int n, Duration timeout) {
    List<WorkCompletion> got = new ArrayList<>(n);
    WorkCompletion[] wcs = WorkCompletion.array(Math.min(Math.max(n, 1), 64));
    Backoff backoff = new Backoff();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (got.size() < n) {
      int k = cq.poll(wcs, Math.min(wcs.length, n - got.size()));
      if (k > 0) {
        for (int i = 0; i < k; i++) {
          got.add(new WorkCompletion().copyFrom(wcs[i]));
        }
        backoff.reset();
        continue;
      }
      checkAborted();
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("rank " + rank + ": expected " + n + " completion(s) within " + timeout + ", "
            + got.size() + " arrived: " + got);
      }
      backoff.idle();
    }
    return got;
  }

  /**
   * {@link #pollUntil} of one completion.
   *
   * @param cq the CQ
   * @return the completion
   */
  public WorkCompletion pollOne(CompletionQueue cq) {
    return pollUntil(cq, 1).get(0);
  }

  /**
   * Asserts that no completion arrives on {@code cq} during {@code window}.
   *
   * @param cq the CQ
   * @param window how long to watch
   * @throws AssertionError naming the completion that arrived
   */
  public void expectNoCompletion(CompletionQueue cq, Duration window) {
    WorkCompletion[] wcs = WorkCompletion.array(1);
    Backoff backoff = new Backoff();
    long deadline = System.nanoTime() + window.toNanos();
    do {
      if (cq.poll(wcs) > 0) {
        throw new AssertionError("rank " + rank + ": expected no completion, got " + wcs[0]);
      }
      checkAborted();
      backoff.idle();
    } while (System.nanoTime() - deadline < 0);
  }

  /**
   * Waits for the next async event of {@code type}, skipping others (a provider may raise
   * COMM_EST at any first receive, for example).
   *
   * @param type the event type
   * @param timeout the bound
   * @return the event
   * @throws AssertionError if none came, listing the events that did
   */
  public AsyncEvent awaitAsyncEvent(AsyncEventType type, Duration timeout) {
    List<AsyncEvent> others = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      checkAborted();
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("rank " + rank + ": no " + type + " event within " + timeout + "; other events: "
            + others);
      }
      Optional<AsyncEvent> e = ctx.pollAsyncEvent(Duration.ofNanos(Math.min(left, SLICE.toNanos())));
      if (e.isPresent()) {
        if (e.get().type() == type) {
          return e.get();
        }
        others.add(e.get());
      }
    }
  }

  /**
   * Every async event of {@code type} raised during {@code window} (others are dropped).
   *
   * @param type the event type
   * @param window how long to collect
   * @return the events, possibly empty
   */
  public List<AsyncEvent> asyncEvents(AsyncEventType type, Duration window) {
    List<AsyncEvent> list = new ArrayList<>();
    long deadline = System.nanoTime() + window.toNanos();
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      checkAborted();
      Optional<AsyncEvent> e = ctx.pollAsyncEvent(Duration.ofNanos(Math.min(left, SLICE.toNanos())));
      if (e.isPresent() && e.get().type() == type) {
        list.add(e.get());
      }
    }
    return list;
  }

  /**
   * Waits until {@code qp} reports {@code state} (a provider moves a QP to ERR on its engine
   * thread, possibly just after the completion that reports the error).
   *
   * @param qp the QP
   * @param state the expected state
   * @throws AssertionError naming the state it stayed in
   */
  public void awaitState(QueuePair qp, QpState state) {
    Backoff backoff = new Backoff();
    long deadline = System.nanoTime() + timeout().toNanos();
    while (qp.state() != state) {
      checkAborted();
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("rank " + rank + ": QP 0x" + Integer.toHexString(qp.qpNum()) + " stayed in "
            + qp.state() + ", expected " + state);
      }
      backoff.idle();
    }
  }

  /**
   * Sleeps {@code d}, checking for an abort. Only for scenarios that specify a delay (e.g. posting
   * a receive 100 ms after an RNR), never to wait for a result.
   *
   * @param d how long
   */
  public void pause(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      checkAborted();
      LockSupport.parkNanos(Math.min(left, 10_000_000L));
    }
  }

  /**
   * Closes this rank's context now, as a peer that goes away would (its fabric node leaves). Every
   * object of the context must be closed first. The harness then skips this rank's end-of-job
   * barrier, which this call has already entered.
   */
  public void closeContextEarly() {
    publishEnd();
    closedEarly = true;
    ctx.close();
  }

  void publishEnd() {
    if (!endPublished && size > 1) {
      job.put(key("kit-end", rank), "1");
    }
    endPublished = true;
  }

  /** The end-of-job barrier: no rank closes its context while the other still runs its body. */
  void endOfJob() {
    if (size == 1 || closedEarly) {
      return;
    }
    publishEnd();
    for (int r = 0; r < size; r++) {
      if (r != rank) {
        await(key("kit-end", r), r, "end of job");
      }
    }
  }

  @Override
  public String toString() {
    return "Peer{rank=" + rank + "/" + size + ", job=" + jobId + ", env=" + environment.name() + '}';
  }
}
