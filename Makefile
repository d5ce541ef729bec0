# Two commands for a new user:  `make play`  and  `make test`.
# Each creates .venv when missing and installs everything into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
TORCH  ?= torch==2.14.1 torchvision==0.29.1
# Set CONSTRAINTS= (empty) together with TORCH=... to use another torch build.
CONSTRAINTS ?= -c constraints.txt

.PHONY: play test lint eval clean-venv

$(BIN)/kiekai: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install $(CONSTRAINTS) $(TORCH)
	$(PIP) install $(CONSTRAINTS) -e '.[dev]'
	# MTCNN faces for the people perception; --no-deps: facenet-pytorch pins torch<2.3, numpy<2
	# and Pillow<10.3, yet runs on kiekai's torch (docs/perception.md)
	$(PIP) install $(CONSTRAINTS) --no-deps 'facenet-pytorch==2.6.0'
	touch $(BIN)/kiekai

play: $(BIN)/kiekai
	$(BIN)/kiekai play --bots 3

test: $(BIN)/kiekai
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: $(BIN)/kiekai
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

eval: $(BIN)/kiekai
	$(BIN)/python scripts/make_evaluation.py

clean-venv:
	rm -rf $(VENV)
