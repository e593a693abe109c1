package io.github.verbs4j.examples.mp;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * MPI-style matching: receives that are posted and waiting, and messages that arrived unexpected,
 * each in arrival order. An incoming message takes the first posted receive that matches it; a new
 * receive takes the first unexpected message that matches it — so messages from one sender with one
 * tag are received in the order they were sent.
 */
final class Matcher {
  private final ArrayDeque<Request> posted = new ArrayDeque<>();
  private final ArrayDeque<Incoming> unexpected = new ArrayDeque<>();

  /**
   * @param source the sender
   * @param tag the tag
   * @param context the context
   * @return the first posted receive that matches, removed, or null
   */
  Request takePosted(int source, int tag, int context) {
    for (Iterator<Request> it = posted.iterator(); it.hasNext();) {
      Request r = it.next();
      if (r.matches(source, tag, context)) {
        it.remove();
        return r;
      }
    }
    return null;
  }

  /**
   * @param recv a new receive
   * @return the first unexpected message it matches, removed, or null
   */
  Incoming takeUnexpected(Request recv) {
    for (Iterator<Incoming> it = unexpected.iterator(); it.hasNext();) {
      Incoming m = it.next();
      if (recv.matches(m.source, m.tag, m.context)) {
        it.remove();
        return m;
      }
    }
    return null;
  }

  void post(Request recv) {
    posted.addLast(recv);
  }

  void arrived(Incoming m) {
    unexpected.addLast(m);
  }

  /** @return how many receives wait (for diagnostics) */
  int postedCount() {
    return posted.size();
  }

  /** @return how many unexpected messages wait (for diagnostics) */
  int unexpectedCount() {
    return unexpected.size();
  }
}
