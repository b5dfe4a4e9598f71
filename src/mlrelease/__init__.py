"""mlrelease: release engineering for ML libraries in the ONNX / PyTorch ecosystem."""

__version__ = "0.1.0.dev0"
