package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A communicator whose ranks are threads of one JVM and whose messages are byte copies in shared
 * queues: the test double that lets the collectives and Himeno's decomposition be checked without
 * a verbs provider. Matching and ordering use the same {@link Matcher} as the verbs communicator.
 */
public final class ThreadCommunicator extends AbstractCommunicator {
  private final List<ConcurrentLinkedQueue<Incoming>> mailboxes;
  private final Matcher matcher = new Matcher();

  private ThreadCommunicator(int rank, List<ConcurrentLinkedQueue<Incoming>> mailboxes) {
    super(rank, mailboxes.size(), Duration.ofSeconds(30));
    this.mailboxes = mailboxes;
  }

  /**
   * Runs {@code body} on {@code size} ranks, one thread each, and returns their results in rank order.
   *
   * @param size ranks
   * @param body what each rank does
   * @param <T> the result type
   * @return the results
   * @throws Exception the first rank's failure
   */
  public static <T> List<T> run(int size, Function<Communicator, T> body) throws Exception {
    List<ConcurrentLinkedQueue<Incoming>> boxes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      boxes.add(new ConcurrentLinkedQueue<>());
    }
    ExecutorService pool = Executors.newFixedThreadPool(size);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        ThreadCommunicator c = new ThreadCommunicator(r, boxes);
        futures.add(pool.submit(() -> body.apply(c)));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes);
  }

  @Override
  public long nowNanos() {
    return System.nanoTime();
  }

  @Override
  public void compute(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("compute nanos=" + nanos + " must not be negative");
    }
  }

  @Override
  protected Request isend(ByteBuffer data, int dest, int tag, int context) {
    int len = data.remaining();
    byte[] copy = new byte[len];
    data.get(data.position(), copy);
    mailboxes.get(dest).add(new Incoming(rank(), tag, context, len, copy, null));
    Request r = new Request(Request.Kind.SEND, dest, tag, context, data, len);
    r.complete(new Status(dest, tag, len));
    return r;
  }

  @Override
  protected Request irecv(ByteBuffer into, int source, int tag, int context) {
    Request r = new Request(Request.Kind.RECV, source, tag, context, into, into.remaining());
    Incoming m = matcher.takeUnexpected(r);
    if (m != null) {
      deliver(r, m);
    } else {
      matcher.post(r);
    }
    return r;
  }

  @Override
  protected int progress() {
    int work = 0;
    Incoming m;
    while ((m = mailboxes.get(rank()).poll()) != null) {
      work++;
      Request r = matcher.takePosted(m.source, m.tag, m.context);
      if (r != null) {
        deliver(r, m);
      } else {
        matcher.arrived(m);
      }
    }
    return work;
  }

  private static void deliver(Request r, Incoming m) {
    if (m.length > r.length) {
      r.fail(new MpException("message of " + m.length + " bytes truncated to " + r.length));
      return;
    }
    r.buffer.put(r.buffer.position(), m.data, 0, m.length);
    r.complete(new Status(m.source, m.tag, m.length));
  }

  @Override
  public void close() {}
}
