"""eggs"""
