package io.github.verbs4j.examples.mp;

import io.github.verbs4j.fabric.local.LocalFabric;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Ranks that are threads of one JVM on the deterministic in-JVM fabric, run one at a time so that a
 * modelled-time run repeats exactly, as SimGrid's SMPI runs MPI ranks. Threads racing in wall time
 * cannot give that: an arrival would be taken whenever its node's thread got to it.
 *
 * <p>A rank sets up freely (opening the device and connecting through the job's key-value store
 * need every rank running at once), then {@linkplain Turn#enter() enters} at the end of {@link
 * VerbsCommunicator}'s open. From then on it runs only in its turn, and a wait that finds nothing
 * to do {@linkplain Turn#pass() passes} the turn back. The driver ({@link #drive()}) gives each
 * rank a turn in rank order; when every rank waits, it runs the fabric's events of the next
 * modelled instant (deliveries, the devices' work, timers) and goes round again. Every rank then
 * sees its completions at their modelled times, whatever the machine's load. When every rank waits
 * and no event is pending, the ranks wait for each other forever: each gets an {@link
 * MpException} naming them.
 *
 * <pre>
 *   setup (free) ──enter──▶ WAITING ◀──pass── RUNNING (its turn: post, poll, compute)
 *                              │  driver: turn to r ──▶ RUNNING
 *                              └─ body returns ──▶ DONE
 * </pre>
 *
 * <p>Needs {@code verbs.fabric.mode=deterministic} and {@code verbs.threading=invoker} (no engine
 * thread: a rank's posts and polls run its device).
 */
public final class Lockstep {
  private static final ThreadLocal<Turn> CURRENT = new ThreadLocal<>();
  private static final int DRIVER = -1;

  private enum State { SETUP, WAITING, DONE }

  private final String fabricName;
  private final State[] states;
  private int turn = DRIVER;
  /** Set when every rank waits and nothing is pending: why. */
  private String deadlock;

  /**
   * @param fabricName the {@code verbs.fabric.name} the ranks' devices join
   * @param size ranks
   */
  public Lockstep(String fabricName, int size) {
    this.fabricName = fabricName;
    this.states = new State[size];
    java.util.Arrays.fill(states, State.SETUP);
  }

  /**
   * Wraps what rank {@code rank}'s thread runs: its waits take turns once its communicator is open.
   *
   * @param rank the rank
   * @param body what it runs
   * @param <T> its result
   * @return the wrapped body
   */
  public <T> Callable<T> rank(int rank, Callable<T> body) {
    return () -> {
      CURRENT.set(new Turn(rank));
      try {
        return body.call();
      } finally {
        CURRENT.remove();
        leave(rank);
      }
    };
  }

  /** @return the turn of the calling rank thread, or null outside a lockstep */
  static Turn current() {
    return CURRENT.get();
  }

  /** A rank's side: it enters once, then passes the turn whenever it waits. */
  final class Turn {
    private final int rank;

    private Turn(int rank) {
      this.rank = rank;
    }

    /** Setup is over: from now on this rank runs only in its turn. */
    void enter() {
      synchronized (Lockstep.this) {
        states[rank] = State.WAITING;
        Lockstep.this.notifyAll();
        awaitTurn();
      }
    }

    /** Nothing to do until the fabric moves: lets the others run and the fabric's next instant. */
    void pass() {
      synchronized (Lockstep.this) {
        turn = DRIVER;
        Lockstep.this.notifyAll();
        awaitTurn();
      }
    }

    private void awaitTurn() {
      while (turn != rank && deadlock == null) {
        try {
          Lockstep.this.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new MpException("rank " + rank + ": interrupted while waiting for its turn", e);
        }
      }
      if (turn != rank) {
        throw new MpException("rank " + rank + ": " + deadlock); // a new one each time: a close may fail the same way
      }
    }
  }

  private synchronized void leave(int rank) {
    states[rank] = State.DONE;
    if (turn == rank) {
      turn = DRIVER;
    }
    notifyAll();
  }

  /**
   * Runs the ranks and the fabric in turn until every rank's body has returned. Call it on a thread
   * of its own (not a rank's) once the ranks' threads are started.
   *
   * @throws InterruptedException if interrupted
   */
  public void drive() throws InterruptedException {
    LocalFabric fabric = null;
    while (true) {
      synchronized (this) {
        while (count(State.SETUP) > 0) {
          wait(); // every rank sets up before any runs in turns
        }
        boolean any = false;
        for (int r = 0; r < states.length; r++) {
          if (states[r] == State.WAITING) {
            any = true;
            turn = r;
            notifyAll();
            while (turn != DRIVER) {
              wait();
            }
          }
        }
        if (!any) {
          return;
        }
      }
      if (fabric == null) {
        fabric = LocalFabric.shared(fabricName);
      }
      long next = fabric == null ? Long.MAX_VALUE : fabric.nextEventTime();
      if (next == Long.MAX_VALUE) {
        synchronized (this) {
          List<Integer> waiting = new ArrayList<>();
          for (int r = 0; r < states.length; r++) {
            if (states[r] == State.WAITING) {
              waiting.add(r);
            }
          }
          deadlock = "ranks " + waiting + " all wait and no message, completion or timer is pending: they wait for "
              + "each other forever";
          notifyAll();
          while (count(State.WAITING) > 0) {
            wait();
          }
        }
        return;
      }
      fabric.runUntil(next);
    }
  }

  private int count(State s) {
    int n = 0;
    for (State x : states) {
      if (x == s) {
        n++;
      }
    }
    return n;
  }
}
