/**
 * {@code verbs4j srq-fc}: the seed-002 SRQ flow-control study (stop/resend requests against RNR NAK
 * and SRQ-limit refill), per flow-control event, in modelled time.
 */
package io.github.verbs4j.examples.srqfc;
