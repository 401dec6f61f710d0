"""Encoders, R-GCN, training and layout detection. Pure torch/onnx: no database code."""
