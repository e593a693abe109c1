/**
 * The simulated HCA's engines, split by IBTA role as soft-RoCE splits them: {@link
 * io.github.verbs4j.ib.engine.Requester} (WQEs to packets, PSNs, retransmit and RNR timers),
 * {@link io.github.verbs4j.ib.engine.Responder} (PSN checks, duplicates, replay cache, access
 * checks, receive consumption, ACK/NAK) and {@link io.github.verbs4j.ib.engine.Completer} (ACK
 * processing, in-order completions, errors, flush), driven by the {@link
 * io.github.verbs4j.ib.engine.IbDevice} agent over a {@link io.github.verbs4j.ib.engine.PacketPort}.
 * Nothing here depends on the fabric: tests connect devices with an in-memory port and a fake
 * clock.
 */
package io.github.verbs4j.ib.engine;
