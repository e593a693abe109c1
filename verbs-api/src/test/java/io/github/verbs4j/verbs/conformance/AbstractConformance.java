package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import java.util.EnumSet;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * The base of every conformance kit class. A provider module runs the kit by subclassing each kit
 * class (one subclass per class and environment) and returning its {@link KitEnvironment}:
 *
 * <pre>{@code
 * class IbLocalRcTrafficTest extends RcTrafficConformance {
 *   @Override
 *   protected KitEnvironment environment() {
 *     return IbEnvironments.LOCAL;        // threads in this JVM, local fabric
 *   }
 * }
 *
 * class IbNettyRcTrafficIT extends RcTrafficConformance {
 *   @Override
 *   protected KitEnvironment environment() {
 *     return IbEnvironments.NETTY_2PROC;  // rank 1 in a child JVM, Netty fabric
 *   }
 * }
 * }</pre>
 *
 * <p>The subclass needs a public no-arg constructor (JUnit's default) because, for environments
 * with {@link KitEnvironment#peersInProcesses()}, {@link KitPeerMain} creates it again in the child
 * JVM to run rank 1.
 *
 * <p>Scenarios come in three shapes. One-sided scenarios (objects, attributes, post-time errors) run
 * {@link #oneSided} with one context (rank 0 of a job of size 1). Two-sided scenarios are a public
 * method {@code void xxxBody(Peer p)} run by both ranks through {@link #twoSided(String)}; the body
 * branches on {@link Peer#rank()}. SPMD scenarios run such a body on three or more ranks through
 * {@link #spmd(int, String)}. Each shape takes optional settings added to every rank's
 * configuration (a fault rate, say), so a scenario needs no private launcher. Optional features are skipped with JUnit assumptions on {@link
 * DeviceAttr#has(Capability)} and other device attributes, never on the provider's name.
 */
public abstract class AbstractConformance {
  /** For subclasses. */
  protected AbstractConformance() {}

  /**
   * Where this kit class runs.
   *
   * @return the environment
   */
  protected abstract KitEnvironment environment();

  /** A one-sided scenario body. */
  @FunctionalInterface
  protected interface Body {
    /**
     * Runs the scenario.
     *
     * @param p rank 0 of a one-rank job
     * @throws Exception to fail the scenario
     */
    void run(Peer p) throws Exception;
  }

  private static String newJobId() {
    return UUID.randomUUID().toString();
  }

  private String label() {
    return getClass().getSimpleName();
  }

  /**
   * Runs a one-sided scenario: opens {@code config(0, 1, jobId)}, runs {@code body} in a thread
   * bounded by the environment's timeout, closes the context (a scenario that leaves objects open
   * fails with the EBUSY of the close).
   *
   * @param body the scenario
   */
  protected final void oneSided(Body body) {
    oneSided(Map.of(), body);
  }

  /**
   * {@link #oneSided(Body)} with {@code settings} added to the context's configuration (e.g. a
   * fault rate or a privilege the scenario needs).
   *
   * @param settings {@code verbs.*} keys and values, on top of the environment's
   * @param body the scenario
   */
  protected final void oneSided(Map<String, String> settings, Body body) {
    KitEnvironment env = environment();
    KitRunner.runThreads(env, newJobId(), 1, Map.copyOf(settings), body::run, label());
  }

  /**
   * Runs a two-sided scenario: rank 0 and rank 1 both run {@code public void bodyMethod(Peer)} of
   * this class, as two threads or, with {@link KitEnvironment#peersInProcesses()}, rank 1 in a
   * child JVM. The first failure of either rank fails the test (a child's failure with the tail of
   * its output, kept under {@code target/kit-peers/}); a rank that skips (an assumption) skips the
   * test.
   *
   * @param bodyMethod the name of the body method
   */
  protected final void twoSided(String bodyMethod) {
    spmd(2, bodyMethod, Map.of());
  }

  /**
   * {@link #twoSided(String)} with {@code settings} added to both ranks' configurations.
   *
   * @param bodyMethod the name of the body method
   * @param settings {@code verbs.*} keys and values, on top of the environment's
   */
  protected final void twoSided(String bodyMethod, Map<String, String> settings) {
    spmd(2, bodyMethod, settings);
  }

  /**
   * Runs an SPMD scenario of {@code size} ranks: each runs {@code public void bodyMethod(Peer)} of
   * this class, as threads or, with {@link KitEnvironment#peersInProcesses()}, rank 0 here and
   * every other rank in a child JVM of its own. Ranks exchange with {@link Peer#allGather} and
   * {@link Peer#barrier}; failures and skips are reported as for {@link #twoSided(String)}.
   *
   * @param size the number of ranks, at least 2
   * @param bodyMethod the name of the body method
   */
  protected final void spmd(int size, String bodyMethod) {
    spmd(size, bodyMethod, Map.of());
  }

  /**
   * {@link #spmd(int, String)} with {@code settings} added to every rank's configuration.
   *
   * @param size the number of ranks, at least 2
   * @param bodyMethod the name of the body method
   * @param settings {@code verbs.*} keys and values, on top of the environment's
   */
  protected final void spmd(int size, String bodyMethod, Map<String, String> settings) {
    if (size < 2) {
      throw new IllegalArgumentException("spmd size=" + size + " is below 2; use oneSided");
    }
    KitEnvironment env = environment();
    String jobId = newJobId();
    String label = label() + "." + bodyMethod;
    Map<String, String> s = Map.copyOf(settings);
    if (env.peersInProcesses()) {
      KitRunner.runWithChildren(this, env, jobId, bodyMethod, size, s, label);
    } else {
      KitRunner.runThreads(env, jobId, size, s, KitRunner.method(this, bodyMethod), label);
    }
  }

  /**
   * Skips the scenario (on this rank; the harness skips the test) unless the device has {@code cap}.
   *
   * @param p the rank
   * @param cap the capability the scenario needs
   */
  protected static void assumeCapability(Peer p, Capability cap) {
    Assumptions.assumeTrue(p.ctx().queryDevice().has(cap), "the device does not report capability " + cap);
  }

  /**
   * Creates a QP of {@code type} on one CQ.
   *
   * @param pd the PD
   * @param cq send and receive CQ
   * @param type the QP type
   * @param cap requested capacities
   * @return the QP, in RESET
   */
  protected static QueuePair createQp(ProtectionDomain pd, CompletionQueue cq, QpType type, QpCap cap) {
    return pd.createQp(QpInitAttr.builder(type).cq(cq).cap(cap).build());
  }

  /**
   * RESET→INIT with exactly the required attributes of §2.3 for RC, UC or UD.
   *
   * @param qp the QP
   */
  protected static void toInit(QueuePair qp) {
    QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1);
    if (qp.type() == QpType.UD) {
      a.qkey(UdResources.QKEY);
    } else {
      a.qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
    }
    qp.modify(a);
  }

  /**
   * INIT→RTR of an RC or UC QP towards itself (this port's LID, its own QPN): no traffic is
   * exchanged, so one-sided scenarios can reach RTR and RTS.
   *
   * @param p the rank
   * @param qp the QP, in INIT
   */
  protected static void toRtrLoopback(Peer p, QueuePair qp) {
    QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qp.qpNum()).rqPsn(0)
        .ahAttr(AhAttr.lid(p.ctx().queryPort(1).lid()));
    if (qp.type() == QpType.RC) {
      a.maxDestRdAtomic(1).minRnrTimer(12);
    }
    qp.modify(a);
  }

  /**
   * RTR→RTS with the required attributes of §2.3 (pyverbs values) for RC, UC or UD.
   *
   * @param qp the QP, in RTR
   */
  protected static void toRts(QueuePair qp) {
    QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(0);
    if (qp.type() == QpType.RC) {
      a.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
    }
    qp.modify(a);
  }
}
