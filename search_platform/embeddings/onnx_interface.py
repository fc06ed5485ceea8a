"""What every encoder graph the platform writes agrees on, shared by the graph builder (onnx_graph), the torch
exporter (onnx_export) and the runtime encoder (onnx): its opset, the inputs it may take and its output's name."""

OPSET = 17
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")  # what a graph may take; MPNet's lacks token types
OUTPUT_NAME = "token_embeddings"
