package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.time.FabricTimer;
import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * The deterministic mode's single event queue, ordered by (modelled time, insertion sequence), so
 * the same program gives the same event order and the same modelled times however loaded the
 * machine is. Callers hold the fabric's lock.
 */
final class DeterministicLoop {
  enum Kind { HOP, DELIVER, TASK }

  /**
   * One event. HOP and DELIVER events are internal and reused ({@link #recycle}); TASK events are
   * handed out as {@link FabricTimer}s and never reused.
   */
  static final class Event implements FabricTimer, Comparable<Event> {
    Kind kind;
    long time;
    long seq;
    LocalNode node;
    LocalFrame frame;
    Runnable task;
    boolean cancelled;

    Event set(Kind kind, long time, long seq, LocalNode node, LocalFrame frame, Runnable task) {
      this.kind = kind;
      this.time = time;
      this.seq = seq;
      this.node = node;
      this.frame = frame;
      this.task = task;
      this.cancelled = false;
      return this;
    }

    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel() {
      synchronized (node.fabric) {
        boolean was = !cancelled;
        cancelled = true;
        return was;
      }
    }
  }

  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final ArrayDeque<Event> free = new ArrayDeque<>();
  private long seq;
  private long now;

  Event add(Kind kind, long time, LocalNode node, LocalFrame frame, Runnable task) {
    Event e = kind != Kind.TASK && !free.isEmpty() ? free.poll() : new Event();
    queue.add(e.set(kind, time, seq++, node, frame, task));
    return e;
  }

  /**
   * Returns a HOP or DELIVER event that has been polled and run, for reuse (so frames cross the
   * deterministic fabric without allocating).
   *
   * @param e the event
   */
  void recycle(Event e) {
    if (e.kind != Kind.TASK && free.size() < 4096) {
      e.node = null;
      e.frame = null;
      free.push(e);
    }
  }

  Event poll() {
    Event e = queue.poll();
    if (e != null && e.time > now) {
      now = e.time;
    }
    return e;
  }

  Event peek() {
    return queue.peek();
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int size() {
    return queue.size();
  }

  long now() {
    return now;
  }
}
