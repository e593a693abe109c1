package io.github.verbs4j.fabric.fault;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Faults of the directed path from one node to another. Rates draw from a random generator seeded
 * from {@code verbs.fault.seed} and the pair, so each pair's sequence of faults depends only on the
 * seed and on the frames sent on that pair. Scripted actions fire at given frame indexes. Fluent
 * setters return {@code this}. Thread-safe (decisions lock this object).
 *
 * <pre>{@code
 * fabric.faults().link(1, 2).dropRate(0.05).duplicateRate(0.01).at(10, FaultAction.CORRUPT);
 * }</pre>
 */
public final class LinkFaults {
  private final int src;
  private final int dst;
  private final SplittableRandom random;
  private final Map<Long, Integer> script = new HashMap<>();
  private double drop;
  private double duplicate;
  private double reorder;
  private double corrupt;
  private double delay;
  private long delayNanos;
  private boolean down;
  private long frameIndex;
  private final FaultInjector injector;

  LinkFaults(int src, int dst, long seed, FaultInjector defaults) {
    this.injector = defaults;
    this.src = src;
    this.dst = dst;
    this.random = new SplittableRandom(mix(seed, src, dst));
    this.drop = defaults.defaultDrop;
    this.duplicate = defaults.defaultDuplicate;
    this.reorder = defaults.defaultReorder;
    this.corrupt = defaults.defaultCorrupt;
    this.delay = defaults.defaultDelay;
    this.delayNanos = defaults.defaultDelayNanos;
  }

  private static long mix(long seed, int src, int dst) {
    long z = seed ^ (((long) src << 32) | (dst & 0xFFFFFFFFL)) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double checkRate(String what, double r) {
    if (!(r >= 0.0 && r <= 1.0)) {
      throw new IllegalArgumentException(what + "=" + r + " must be a probability in [0, 1]");
    }
    return r;
  }

  /** @return source node */
  public int src() {
    return src;
  }

  /** @return destination node */
  public int dst() {
    return dst;
  }

  /**
   * @param rate probability a frame is dropped
   * @return this
   */
  public synchronized LinkFaults dropRate(double rate) {
    drop = checkRate("dropRate", rate);
    return this;
  }

  /**
   * @param rate probability a frame is delivered twice
   * @return this
   */
  public synchronized LinkFaults duplicateRate(double rate) {
    duplicate = checkRate("duplicateRate", rate);
    return this;
  }

  /**
   * @param rate probability a frame is held back behind the next one
   * @return this
   */
  public synchronized LinkFaults reorderRate(double rate) {
    reorder = checkRate("reorderRate", rate);
    return this;
  }

  /**
   * @param rate probability one payload bit is flipped
   * @return this
   */
  public synchronized LinkFaults corruptRate(double rate) {
    corrupt = checkRate("corruptRate", rate);
    if (rate > 0) {
      injector.corruptionConfigured();
    }
    return this;
  }

  /**
   * @param rate probability a frame is delayed
   * @param nanos the extra delay
   * @return this
   */
  public synchronized LinkFaults delay(double rate, long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("delay nanos=" + nanos + " must not be negative");
    }
    delay = checkRate("delayRate", rate);
    delayNanos = nanos;
    return this;
  }

  /**
   * Takes the pair down now: frames are dropped as {@code link_down} until {@link #up()}.
   *
   * @return this
   */
  public synchronized LinkFaults down() {
    down = true;
    return this;
  }

  /**
   * Brings the pair up again.
   *
   * @return this
   */
  public synchronized LinkFaults up() {
    down = false;
    return this;
  }

  /** @return true if the pair is down */
  public synchronized boolean isDown() {
    return down;
  }

  /**
   * Scripts an action at a frame index of this pair (0-based, counting frames from now on as well
   * as those already sent: the index is absolute).
   *
   * @param frame the frame index
   * @param action the action
   * @return this
   */
  public synchronized LinkFaults at(long frame, FaultAction action) {
    if (frame < 0) {
      throw new IllegalArgumentException("frame index=" + frame + " must not be negative");
    }
    if (action == FaultAction.CORRUPT) {
      injector.corruptionConfigured();
    }
    script.merge(frame, action.bit(), (a, b) -> a | b);
    return this;
  }

  /** @return the delay added to delayed frames, ns */
  public synchronized long delayNanos() {
    return delayNanos;
  }

  /** @return frames decided so far on this pair */
  public synchronized long framesSeen() {
    return frameIndex;
  }

  /**
   * Decides the faults of the next frame. Draws the random numbers in a fixed order (drop,
   * duplicate, reorder, corrupt, delay) whatever the rates, so changing one rate does not shift the
   * others' sequence.
   *
   * @return a mask of {@link FaultAction#bit()}s; {@link FaultAction#DOWN} if the pair is down
   */
  synchronized int decide() {
    long i = frameIndex++;
    int mask = 0;
    if (!script.isEmpty()) {
      Integer s = script.get(i);
      if (s != null) {
        mask = s;
        if ((mask & FaultAction.DOWN.bit()) != 0) {
          down = true;
        }
        if ((mask & FaultAction.UP.bit()) != 0) {
          down = false;
        }
        mask &= ~(FaultAction.DOWN.bit() | FaultAction.UP.bit());
      }
    }
    double r1 = random.nextDouble();
    double r2 = random.nextDouble();
    double r3 = random.nextDouble();
    double r4 = random.nextDouble();
    double r5 = random.nextDouble();
    if (down) {
      return FaultAction.DOWN.bit();
    }
    if (r1 < drop) {
      mask |= FaultAction.DROP.bit();
    }
    if (r2 < duplicate) {
      mask |= FaultAction.DUPLICATE.bit();
    }
    if (r3 < reorder) {
      mask |= FaultAction.REORDER.bit();
    }
    if (r4 < corrupt) {
      mask |= FaultAction.CORRUPT.bit();
    }
    if (r5 < delay) {
      mask |= FaultAction.DELAY.bit();
    }
    return mask;
  }

  /**
   * @param bound exclusive bound
   * @return a uniformly drawn int in [0, bound) from this pair's generator (which bit to corrupt)
   */
  synchronized int nextInt(int bound) {
    return random.nextInt(bound);
  }
}
