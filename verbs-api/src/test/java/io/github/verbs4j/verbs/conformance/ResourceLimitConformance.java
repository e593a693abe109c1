package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The device-wide object limits of {@code ibv_device_attr} are verbs errors (issue 23): creating
 * one object more than {@code max_qp}, {@code max_cq}, {@code max_mr}, {@code max_srq} or {@code
 * max_pd} allows fails with ENOMEM naming the limit and its value (as rxe's full pools do), and
 * after one object is destroyed another can be created. QPs run against a lowered {@code max_qp}
 * ({@link #maxQpSettings}); the other limits are filled as the device reports them, up to {@value
 * #MOST} objects (a larger limit skips its scenario). Subclass it and return your {@link
 * KitEnvironment} through {@link #guarded}; see {@link AbstractConformance}.
 */
public abstract class ResourceLimitConformance extends AbstractConformance {
  /** The largest limit a scenario fills. */
  static final int MOST = 1 << 16;
  /** The {@code max_qp} the QP scenario sets. */
  static final int SMALL_MAX_QP = 8;
  /** The least hang guard: see {@link #guarded}. */
  public static final Duration GUARD = Duration.ofMinutes(5);

  /**
   * {@code env} with a hang guard of at least {@link #GUARD}: filling a limit of 65,535 regions
   * takes tens of seconds on a loaded two-core machine (each registration is published in the
   * context's copy-on-write region directory). Still a bound, not a speed assertion.
   *
   * @param env the provider's environment
   * @return the same environment with the longer guard
   */
  protected static KitEnvironment guarded(KitEnvironment env) {
    return new GuardedEnvironment(env, GUARD);
  }

  /**
   * The provider's settings for a device with {@code max_qp = n}.
   *
   * @param n the limit
   * @return {@code verbs.*} keys and values
   */
  protected abstract Map<String, String> maxQpSettings(int n);

  /** Fills the limit with {@code create}, checks the ENOMEM of one more, frees one, creates again. */
  private static <T extends AutoCloseable> void fill(Context ctx, String limitName, ToIntFunction<DeviceAttr> limit,
      Creator<T> create) throws Exception {
    int n = limit.applyAsInt(ctx.queryDevice());
    Assumptions.assumeTrue(n <= MOST, limitName + "=" + n + " is larger than this scenario fills");
    List<T> made = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        made.add(create.create());
      }
      VerbsException e = assertErrno(Errno.ENOMEM, create::create);
      assertTrue(e.getMessage().contains(limitName + "=" + n), "the message names " + limitName + "=" + n + ": "
          + e.getMessage());
      made.remove(made.size() - 1).close();
      made.add(create.create());
      assertEquals(n, made.size());
    } finally {
      for (int i = made.size() - 1; i >= 0; i--) {
        made.get(i).close();
      }
    }
  }

  /** Creates one object. */
  @FunctionalInterface
  private interface Creator<T> {
    T create() throws Exception;
  }

  /** max_qp, lowered by configuration: the next QP is ENOMEM naming max_qp, whatever its PD. */
  @Test
  public void qpPastMaxQpIsEnomemNamingTheLimit() {
    oneSided(maxQpSettings(SMALL_MAX_QP), p -> {
      assertEquals(SMALL_MAX_QP, p.ctx().queryDevice().maxQp());
      try (ProtectionDomain pd = p.ctx().allocPd(); ProtectionDomain other = p.ctx().allocPd();
          CompletionQueue cq = p.ctx().createCq(4, null, 0)) {
        QpCap cap = QpCap.builder().maxSendWr(1).maxRecvWr(1).build();
        int[] k = {0};
        fill(p.ctx(), "max_qp", DeviceAttr::maxQp,
            () -> createQp(k[0]++ % 2 == 0 ? pd : other, cq, QpType.RC, cap));
      }
    });
  }

  /** max_cq: the next CQ is ENOMEM naming max_cq. */
  @Test
  public void cqPastMaxCqIsEnomemNamingTheLimit() {
    oneSided(p -> fill(p.ctx(), "max_cq", DeviceAttr::maxCq, () -> p.ctx().createCq(1, null, 0)));
  }

  /** max_pd: the next PD is ENOMEM naming max_pd. */
  @Test
  public void pdPastMaxPdIsEnomemNamingTheLimit() {
    oneSided(p -> fill(p.ctx(), "max_pd", DeviceAttr::maxPd, () -> p.ctx().allocPd()));
  }

  /** max_srq: the next SRQ is ENOMEM naming max_srq. */
  @Test
  public void srqPastMaxSrqIsEnomemNamingTheLimit() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        fill(p.ctx(), "max_srq", DeviceAttr::maxSrq, () -> pd.createSrq(new SrqAttr(1, 1, 0)));
      }
    });
  }

  /** max_mr: the next registration is ENOMEM naming max_mr (regions of one buffer). */
  @Test
  public void mrPastMaxMrIsEnomemNamingTheLimit() {
    oneSided(p -> {
      ByteBuffer buf = ByteBuffer.allocateDirect(64);
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        fill(p.ctx(), "max_mr", DeviceAttr::maxMr, () -> pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE)));
      }
    });
  }
}
