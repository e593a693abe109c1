package io.github.verbs4j.verbs.spi.runtime;

import java.util.Arrays;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that runs one or more agents (Agrona's {@link AgentRunner} over a composite agent): one
 * per device ({@link Threading#DEDICATED}) or one for all devices of the JVM ({@link
 * Threading#SHARED}, {@link #joinShared}). Each cycle it takes each member's {@link AgentLock} if
 * free and runs it; a member another thread runs is skipped (that thread {@link #wake}s this one if
 * it leaves work). When the members are idle it waits with the configured idle strategy, but it
 * never sleeps past a member's next deadline (it yields instead while one is near) and never while
 * a member has work queued: it announces that it sleeps, then checks, so a producer either sees the
 * announcement and unparks it ({@link #wake}) or its work is seen. On an oversubscribed host
 * ({@link HostShare#oversubscribed()}) it parks until its next deadline (at most 50 ms) instead of
 * yielding towards a near one or backing off in parks of a millisecond.
 */
public final class EngineThread implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EngineThread.class);
  private static final Object SHARED_LOCK = new Object();
  private static EngineThread shared;

  private final Members members;
  private final Gate gate;
  private final AgentRunner runner;
  private volatile Thread thread;
  private volatile boolean sleeping;
  private volatile boolean closing;

  /**
   * Starts a thread.
   *
   * @param idle how it waits when idle (e.g. Agrona's {@link BackoffIdleStrategy})
   * @param maxSleepNanos the longest single sleep of {@code idle}: a deadline nearer than this is
   *     waited for by yielding, not sleeping
   * @param name the thread's name
   * @param threads makes the thread (a provider may want a particular thread class)
   * @param first the first agent it runs
   */
  public EngineThread(IdleStrategy idle, long maxSleepNanos, String name, ThreadFactory threads, RuntimeAgent first) {
    members = new Members(name);
    members.add(first);
    gate = new Gate(idle, maxSleepNanos);
    runner = new AgentRunner(gate, t -> LOG.error("engine duty cycle failed", t), null, members);
    thread = AgentRunner.startOnThread(runner, threads);
  }

  /**
   * Adds {@code agent} to the JVM's shared engine thread, starting it if none runs.
   *
   * @param agent the agent
   * @param idle the idle strategy if the thread is started now
   * @param maxSleepNanos its longest sleep
   * @param name the thread's name if it is started now
   * @param threads makes the thread if it is started now
   * @return the shared thread; give the agent back with {@link #leave}
   */
  public static EngineThread joinShared(RuntimeAgent agent, IdleStrategy idle, long maxSleepNanos, String name,
      ThreadFactory threads) {
    synchronized (SHARED_LOCK) {
      if (shared == null) {
        shared = new EngineThread(idle, maxSleepNanos, name, threads, agent);
      } else {
        shared.members.add(agent);
        shared.wake();
      }
      return shared;
    }
  }

  /**
   * Stops running {@code agent}: on return this thread no longer runs it. The last agent to leave
   * a shared thread stops it; a dedicated thread stops with its agent.
   *
   * @param agent an agent this thread runs
   */
  public void leave(RuntimeAgent agent) {
    boolean empty;
    synchronized (SHARED_LOCK) {
      empty = members.remove(agent);
      if (empty && shared == this) {
        shared = null;
      }
    }
    if (empty) {
      close();
      return;
    }
    // The thread may be inside the agent's duty cycle: wait until it is out.
    while (!agent.lock().tryAcquire()) {
      Thread.yield();
    }
    agent.lock().releaseFully();
  }

  /** Makes sure the thread runs its members soon (any thread): unparks it if it sleeps. */
  public void wake() {
    if (sleeping) {
      Thread t = thread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  /**
   * Unparks the thread whether or not it sleeps (any thread): for a runner that leaves work the
   * thread cannot see in its members' queues (a duty-cycle budget ran out, a timer moved earlier),
   * so that a sleep it is about to start ends at once.
   */
  public void unpark() {
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** @return the thread */
  public Thread thread() {
    return thread;
  }

  /** Stops the thread and waits for it. Idempotent. */
  @Override
  public void close() {
    closing = true;
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t); // it sees closing before it sleeps again, and AgentRunner stops it
    }
    runner.close();
    thread = null;
  }

  /** The members, run in turn (copy-on-write: the thread reads the array without a lock). */
  private static final class Members implements Agent {
    private final String name;
    private volatile RuntimeAgent[] agents = new RuntimeAgent[0];
    /** The nearest member deadline after the last cycle, ns (thread only). */
    long until = Long.MAX_VALUE;

    Members(String name) {
      this.name = name;
    }

    synchronized void add(RuntimeAgent a) {
      RuntimeAgent[] l = Arrays.copyOf(agents, agents.length + 1);
      l[l.length - 1] = a;
      agents = l;
    }

    /** @return true if none is left */
    synchronized boolean remove(RuntimeAgent a) {
      RuntimeAgent[] l = agents;
      for (int i = 0; i < l.length; i++) {
        if (l[i] == a) {
          RuntimeAgent[] n = new RuntimeAgent[l.length - 1];
          System.arraycopy(l, 0, n, 0, i);
          System.arraycopy(l, i + 1, n, i, l.length - i - 1);
          agents = n;
          break;
        }
      }
      return agents.length == 0;
    }

    boolean anyPending() {
      for (RuntimeAgent a : agents) {
        if (a.hasPendingWork()) {
          return true;
        }
      }
      return false;
    }

    @Override
    public int doWork() {
      int work = 0;
      long next = Long.MAX_VALUE;
      for (RuntimeAgent a : agents) {
        AgentLock lock = a.lock();
        if (!lock.tryAcquire()) {
          continue; // another thread runs it; it wakes this one if it leaves work
        }
        try {
          do {
            work += a.doWork();
            next = Math.min(next, a.untilDeadlineNanos());
          } while (!lock.release());
        } catch (Exception | Error e) {
          lock.releaseFully();
          LOG.error("duty cycle of {} failed", a.roleName(), e);
          work++;
        }
      }
      until = next;
      return work;
    }

    @Override
    public String roleName() {
      return name; // AgentRunner names its thread after it
    }
  }

  /** The idle strategy with the sleep announcement and the deadline bound. */
  private final class Gate implements IdleStrategy {
    /** Longest single park of an idle engine on an oversubscribed host (a safety net only). */
    private static final long OVERSUBSCRIBED_PARK_NANOS = 50_000_000L;

    private final IdleStrategy idle;
    private final long maxSleepNanos;
    /** Yield towards a near deadline (cores to spare) or park until it (the host is oversubscribed). */
    private final boolean yieldNearDeadline = !HostShare.current().oversubscribed();

    Gate(IdleStrategy idle, long maxSleepNanos) {
      this.idle = idle;
      this.maxSleepNanos = maxSleepNanos;
    }

    @Override
    public void idle(int workCount) {
      if (workCount > 0) {
        idle.reset();
        return;
      }
      long until = members.until;
      if (until < maxSleepNanos && yieldNearDeadline) {
        if (until > 0) {
          Thread.yield(); // a deadline is near: do not sleep past it
        }
        return;
      }
      if (until <= 0) {
        return;
      }
      sleeping = true;
      try {
        if (!closing && !members.anyPending()) {
          if (!yieldNearDeadline) {
            // oversubscribed: sleep until the next deadline, woken early by work (wake/unpark); a
            // back-off that parks at most a millisecond at a time would wake every idle engine of
            // the host a thousand times a second, taking the cores from the ranks with work
            LockSupport.parkNanos(Math.min(until, OVERSUBSCRIBED_PARK_NANOS));
          } else {
            idle.idle(0);
          }
        }
      } finally {
        sleeping = false;
      }
    }

    @Override
    public void idle() {
      idle(0);
    }

    @Override
    public void reset() {
      idle.reset();
    }
  }
}
