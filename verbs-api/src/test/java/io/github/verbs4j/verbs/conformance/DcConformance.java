package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * Conformance of the dynamically connected transport (mlx5dv DCI/DCT; §6 scenario 59, §5.1,
 * CONFORMANCE.md: a wrong DC key is dropped at the target and the requester ends with
 * RETRY_EXC_ERR). Skipped unless the device reports {@link Capability#DC}. Subclass it and return
 * your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class DcConformance extends AbstractConformance {

  /** Scenario 59: SENDs from two DCIs reach the peer's DCT through its SRQ, as on RC (scenario 15). */
  @Test
  public void dcSendReachesTheDctThroughItsSrq() {
    twoSided("dcSendReachesTheDctThroughItsSrqBody");
  }

  /**
   * Body of {@link #dcSendReachesTheDctThroughItsSrq()}.
   *
   * @param p the rank
   */
  public void dcSendReachesTheDctThroughItsSrqBody(Peer p) {
    assumeCapability(p, Capability.DC);
    try (DcResources d = new DcResources(p, DcResources.options()).connect()) {
      int msg = d.msgSize();
      long[] dcis = p.exchange("dcis", d.dcis().get(0).qpNum(), d.dcis().get(1).qpNum());
      for (int i = 0; i < 2; i++) {
        if (p.rank() == 1) {
          d.postSrqRecv(i);
        }
        p.barrier("recv-posted-" + i);
        if (p.rank() == 0) {
          QueuePair dci = d.dcis().get(i);
          Patterns.fill(d.mr().buffer(), 0, msg, 590 + i);
          dci.postSend(d.send(i, msg, DcResources.DC_KEY));
          assertWc(p.pollOne(d.cq()), i, WcStatus.SUCCESS, WcOpcode.SEND, dci.qpNum());
        } else {
          WorkCompletion wc = p.pollOne(d.cq());
          assertWc(wc, i, WcStatus.SUCCESS, WcOpcode.RECV, d.dct().qpNum());
          assertEquals(msg, wc.byteLen());
          assertEquals(dcis[i], wc.srcQp(), "src_qp of a DCT receive is the sending DCI");
          Patterns.verify("DC SEND " + i, d.mr().buffer(), msg, msg, 590 + i);
        }
      }
    }
  }

  /** Scenario 59: an RDMA WRITE from a DCI lands in the target's region, as on RC (scenario 19). */
  @Test
  public void dcRdmaWriteLandsInTheTargetRegion() {
    twoSided("dcRdmaWriteLandsInTheTargetRegionBody");
  }

  /**
   * Body of {@link #dcRdmaWriteLandsInTheTargetRegion()}.
   *
   * @param p the rank
   */
  public void dcRdmaWriteLandsInTheTargetRegionBody(Peer p) {
    assumeCapability(p, Capability.DC);
    try (DcResources d = new DcResources(p, DcResources.options()).connect()) {
      int msg = d.msgSize();
      p.barrier("connected");
      if (p.rank() == 0) {
        Patterns.fill(d.mr().buffer(), 0, msg, 591);
        QueuePair dci = d.dcis().get(1);
        dci.postSend(d.write(7, msg));
        assertWc(p.pollOne(d.cq()), 7, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, dci.qpNum());
      }
      p.barrier("written");
      if (p.rank() == 1) {
        Patterns.verify("DC WRITE target", d.mr().buffer(), 0, msg, 591);
        p.expectNoCompletion(d.cq(), Peer.QUIET);
      }
    }
  }

  /** Scenario 59 (CONFORMANCE.md): a SEND with a wrong DC key is dropped at the DCT; the DCI gets RETRY_EXC_ERR. */
  @Test
  public void dcSendWithAWrongKeyIsDroppedAndTheRequesterGetsRetryExcErr() {
    twoSided("dcSendWithAWrongKeyIsDroppedAndTheRequesterGetsRetryExcErrBody");
  }

  /**
   * Body of {@link #dcSendWithAWrongKeyIsDroppedAndTheRequesterGetsRetryExcErr()}.
   *
   * @param p the rank
   */
  public void dcSendWithAWrongKeyIsDroppedAndTheRequesterGetsRetryExcErrBody(Peer p) {
    assumeCapability(p, Capability.DC);
    try (DcResources d = new DcResources(p, DcResources.options().timeout(10).retryCnt(2)).connect()) {
      if (p.rank() == 1) {
        d.postSrqRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        QueuePair dci = d.dcis().get(0);
        dci.postSend(d.send(59, 64, DcResources.DC_KEY + 1));
        assertErrWc(p.pollOne(d.cq()), 59, WcStatus.RETRY_EXC_ERR, dci.qpNum());
        p.awaitState(dci, QpState.ERR);
      } else {
        p.expectNoCompletion(d.cq(), Peer.QUIET);
      }
      p.barrier("done");
    }
  }
}
