package io.github.verbs4j.fabric.coord;

import static io.github.verbs4j.fabric.coord.CoordinatorProtocol.*;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's part of {@code verbs.fabric.kvs=hashed}: it holds no pair, only the requests in
 * flight. A member's PUT or GET of key k goes to the holder, rank {@link KvsPlacement#holder}(k,
 * size), as {@link CoordinatorProtocol#HELD_PUT} or {@link CoordinatorProtocol#HELD_GET} under a
 * request id of the relay's; the holder enforces write-once, keeps a GET until the key arrives, and
 * answers; the relay sends the answer on to the requester under the requester's id.
 *
 * <p>What a member can make it hold is bounded: {@link #MAX_IN_FLIGHT} requests per requester, each
 * a few fields (the key and value are not kept once forwarded); requests for a holder that has not
 * joined yet are queued whole, {@link #MAX_QUEUED_BYTES} in all; every request is forgotten at the
 * requester's own timeout, which it sends (the requester has given up by then: nothing is sent to
 * it, so its timeout reads as before). An answer for a request id the relay never sent, from
 * another rank than the one it was sent to, or of the wrong kind is a protocol violation: {@link
 * #answer} logs it, throws, and the coordinator closes that member's connection. An answer that
 * comes after its request was forgotten is dropped. Thread-safe; sends happen outside the lock.
 */
final class KvsRelay {
  private static final Logger LOG = LoggerFactory.getLogger(KvsRelay.class);
  /** Requests one member may have in flight through the relay; more are refused with an error. */
  static final int MAX_IN_FLIGHT = 4096;
  /** Bytes of keys and values queued for holders that have not joined yet, all members together. */
  static final long MAX_QUEUED_BYTES = 64L << 20;
  /** Longest a request is kept, whatever timeout the requester sent. */
  static final long MAX_TIMEOUT_MS = TimeUnit.DAYS.toMillis(1);

  /** A member's connection as the relay sees it. */
  interface Endpoint {
    /** Sends a message (errors close the connection; never throws). */
    void send(int op, long id, Body body);

    /** @return the member's rank, -1 before its HELLO */
    int memberRank();
  }

  /** One request in flight. */
  private static final class Forward {
    final long id;
    final Endpoint requester;
    final long requestId;
    final int holder;
    final int op; // PUT or GET
    final long deadline; // System.nanoTime()
    String key; // with the value: kept only while queued for a holder that has not joined
    byte[] value;
    long queuedBytes;

    Forward(long id, Endpoint requester, long requestId, int holder, int op, long deadline) {
      this.id = id;
      this.requester = requester;
      this.requestId = requestId;
      this.holder = holder;
      this.op = op;
      this.deadline = deadline;
    }
  }

  private final int size;
  private final Endpoint[] holders;
  private final boolean[] down;
  private final Map<Long, Forward> inFlight = new HashMap<>();
  private final Map<Endpoint, Integer> perRequester = new HashMap<>();
  private final Map<Integer, ArrayDeque<Forward>> queued = new HashMap<>();
  private long queuedBytes;
  private long lastId;

  /** @param size the job's size */
  KvsRelay(int size) {
    this.size = size;
    this.holders = new Endpoint[size];
    this.down = new boolean[size];
  }

  /**
   * Relays a member's PUT.
   *
   * @param from the requester
   * @param requestId its request id
   * @param key the key
   * @param value the value
   * @param timeoutMs how long the requester waits
   */
  void put(Endpoint from, long requestId, String key, byte[] value, long timeoutMs) {
    if (value.length > MAX_VALUE) {
      from.send(ERROR, requestId, o -> o.writeUTF("value of " + value.length + " bytes exceeds the " + MAX_VALUE
          + " a verbs.fabric.kvs=hashed put may carry"));
      return;
    }
    relay(from, requestId, PUT, key, value, timeoutMs);
  }

  /**
   * Relays a member's GET.
   *
   * @param from the requester
   * @param requestId its request id
   * @param key the key
   * @param timeoutMs how long the requester waits
   */
  void get(Endpoint from, long requestId, String key, long timeoutMs) {
    relay(from, requestId, GET, key, null, timeoutMs);
  }

  private void relay(Endpoint from, long requestId, int op, String key, byte[] value, long timeoutMs) {
    int h = KvsPlacement.holder(key, size);
    long now = System.nanoTime();
    long ms = Math.min(Math.max(0, timeoutMs), MAX_TIMEOUT_MS);
    Forward f = null;
    Endpoint to = null;
    String error = null;
    synchronized (this) {
      int n = perRequester.getOrDefault(from, 0);
      if (down[h]) {
        error = "its holder, rank " + h + ", is down: the pairs it held are lost";
      } else if (n >= MAX_IN_FLIGHT) {
        error = "rank " + from.memberRank() + " has " + n + " key-value requests in flight at the coordinator (limit "
            + MAX_IN_FLIGHT + ")";
      } else {
        f = new Forward(++lastId, from, requestId, h, op, now + TimeUnit.MILLISECONDS.toNanos(ms));
        to = holders[h];
        if (to == null) {
          long b = KvsPlacement.entryBytes(key, value == null ? 0 : value.length);
          if (queuedBytes + b > MAX_QUEUED_BYTES) {
            error = "rank " + h + " holds the key and has not joined; the coordinator already queues " + queuedBytes
                + " bytes for such ranks (limit " + MAX_QUEUED_BYTES + ")";
          } else {
            f.key = key;
            f.value = value;
            f.queuedBytes = b;
            queuedBytes += b;
            queued.computeIfAbsent(h, k -> new ArrayDeque<>()).add(f);
          }
        }
        if (error == null) {
          inFlight.put(f.id, f);
          perRequester.merge(from, 1, Integer::sum);
        }
      }
    }
    if (error != null) {
      String msg = error;
      from.send(ERROR, requestId, o -> o.writeUTF(msg));
    } else if (to != null) {
      forward(to, f, key, value, ms);
    }
  }

  private static void forward(Endpoint to, Forward f, String key, byte[] value, long ms) {
    to.send(f.op == PUT ? HELD_PUT : HELD_GET, f.id, o -> {
      o.writeUTF(key);
      if (f.op == PUT) {
        writeBytes(o, value);
      }
      o.writeLong(ms);
    });
  }

  /**
   * A member joined: it holds its keys from now on; what waited for it is sent.
   *
   * @param rank its rank
   * @param conn its connection
   */
  void joined(int rank, Endpoint conn) {
    record Send(Forward f, String key, byte[] value) {}
    List<Send> send = new ArrayList<>();
    synchronized (this) {
      holders[rank] = conn;
      ArrayDeque<Forward> q = queued.remove(rank);
      if (q != null) {
        for (Forward f : q) {
          send.add(new Send(f, f.key, f.value));
          queuedBytes -= f.queuedBytes;
          f.key = null;
          f.value = null;
        }
      }
    }
    long now = System.nanoTime();
    for (Send s : send) {
      forward(conn, s.f(), s.key(), s.value(), Math.max(0, TimeUnit.NANOSECONDS.toMillis(s.f().deadline - now)));
    }
  }

  /**
   * A holder's answer to a request the relay sent it ({@link CoordinatorProtocol#OK}, {@link
   * CoordinatorProtocol#VALUE} or {@link CoordinatorProtocol#ERROR} from a member).
   *
   * @param from the member
   * @param op the answer's op
   * @param id the relay's request id it echoes
   * @param body the answer's body
   * @throws IOException naming the member and id if the answer breaks the protocol
   */
  void answer(Endpoint from, int op, long id, DataInputStream body) throws IOException {
    byte[] value = op == VALUE ? readBytes(body) : null;
    String message = op == ERROR ? body.readUTF() : null;
    Forward f;
    synchronized (this) {
      f = inFlight.get(id);
      if (f == null) {
        if (id <= 0 || id > lastId) {
          throw violation("rank " + from.memberRank() + " answered key-value request id=" + id
              + ", which the coordinator never sent (last sent: " + lastId + ")");
        }
        LOG.debug("coordinator: rank {} answered key-value request id={} after its requester gave up", from.memberRank(), id);
        return;
      }
      if (f.holder != from.memberRank() || f.key != null) {
        throw violation("rank " + from.memberRank() + " answered key-value request id=" + id + ", sent to rank "
            + (f.key != null ? f.holder + " (not yet)" : f.holder));
      }
      if (op == VALUE && f.op != GET || op == OK && f.op != PUT) {
        throw violation("rank " + from.memberRank() + " answered a relayed " + (f.op == PUT ? "PUT" : "GET")
            + " id=" + id + " with op=" + op);
      }
      forget(f);
    }
    Forward done = f;
    switch (op) {
      case VALUE -> done.requester.send(VALUE, done.requestId, o -> writeBytes(o, value));
      case ERROR -> done.requester.send(ERROR, done.requestId, o -> o.writeUTF(message));
      default -> done.requester.send(OK, done.requestId, null);
    }
  }

  /**
   * A member's connection ended: the requests it holds fail, the requests it made are forgotten.
   *
   * @param conn its connection
   * @param rank its rank, -1 if it never joined
   */
  void lost(Endpoint conn, int rank) {
    List<Forward> failed = new ArrayList<>();
    synchronized (this) {
      if (rank >= 0 && rank < size && holders[rank] == conn) {
        holders[rank] = null;
        down[rank] = true;
      }
      for (Iterator<Forward> it = inFlight.values().iterator(); it.hasNext(); ) {
        Forward f = it.next();
        if (f.requester == conn || (rank >= 0 && f.holder == rank && down[rank])) {
          it.remove();
          unqueue(f);
          perRequester.computeIfPresent(f.requester, (k, n) -> n > 1 ? n - 1 : null);
          if (f.requester != conn) {
            failed.add(f);
          }
        }
      }
    }
    for (Forward f : failed) {
      f.requester.send(ERROR, f.requestId, o -> o.writeUTF("its holder, rank " + f.holder
          + ", went down: the pairs it held are lost"));
    }
  }

  /**
   * Forgets the requests whose requester has given up (nothing is sent: it has timed out itself).
   *
   * @param now {@link System#nanoTime()}
   */
  synchronized void expire(long now) {
    for (Iterator<Forward> it = inFlight.values().iterator(); it.hasNext(); ) {
      Forward f = it.next();
      if (now - f.deadline > 0) {
        it.remove();
        unqueue(f);
        perRequester.computeIfPresent(f.requester, (k, n) -> n > 1 ? n - 1 : null);
      }
    }
  }

  private void forget(Forward f) {
    inFlight.remove(f.id);
    perRequester.computeIfPresent(f.requester, (k, n) -> n > 1 ? n - 1 : null);
  }

  private void unqueue(Forward f) {
    if (f.key == null) {
      return;
    }
    ArrayDeque<Forward> q = queued.get(f.holder);
    if (q != null && q.remove(f)) {
      queuedBytes -= f.queuedBytes;
      if (q.isEmpty()) {
        queued.remove(f.holder);
      }
    }
    f.key = null;
    f.value = null;
  }

  /** @return requests in flight (forwarded or queued) */
  synchronized int inFlight() {
    return inFlight.size();
  }

  /** @return bytes of keys and values queued for holders that have not joined */
  synchronized long queuedBytes() {
    return queuedBytes;
  }

  private static IOException violation(String what) {
    LOG.warn("coordinator: {}: closing its connection", what);
    return new IOException(what);
  }
}
