/**
 * The {@code demo} command's and the integration tests' simulated inference servers: five
 * replicas (vLLM, SGLang, TGI, llama.cpp, TensorRT-LLM) on loopback, each drawing requests from a
 * load model and exporting them in its engine's own {@code /metrics} format, plus the demo's text
 * table of the agent's snapshot ({@link dev.gputop.agent.demo.DemoTable}). See docs/demo.md.
 */
package dev.gputop.agent.demo;
