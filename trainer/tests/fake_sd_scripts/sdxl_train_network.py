#!/usr/bin/env python3
"""Fake sd-scripts `sdxl_train_network.py`: the same CLI and output as the fake
`train_network.py` beside it (sd-scripts shares them between the two)."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_network.py"), run_name="__main__")
