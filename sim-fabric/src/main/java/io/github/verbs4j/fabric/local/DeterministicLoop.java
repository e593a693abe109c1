package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.time.FabricTimer;
import java.util.PriorityQueue;

/**
 * The deterministic mode's single event queue, ordered by (modelled time, insertion sequence), so
 * the same program gives the same event order and the same modelled times however loaded the
 * machine is. Callers hold the fabric's lock.
 */
final class DeterministicLoop {
  enum Kind { HOP, DELIVER, TASK }

  static final class Event implements FabricTimer, Comparable<Event> {
    final Kind kind;
    final long time;
    final long seq;
    final LocalNode node;
    final LocalFrame frame;
    final Runnable task;
    boolean cancelled;

    Event(Kind kind, long time, long seq, LocalNode node, LocalFrame frame, Runnable task) {
      this.kind = kind;
      this.time = time;
      this.seq = seq;
      this.node = node;
      this.frame = frame;
      this.task = task;
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
  private long seq;
  private long now;

  Event add(Kind kind, long time, LocalNode node, LocalFrame frame, Runnable task) {
    Event e = new Event(kind, time, seq++, node, frame, task);
    queue.add(e);
    return e;
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
