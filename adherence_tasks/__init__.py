"""Instruction-adherence suites: does a judge follow its evaluation instructions or its own taste?"""
