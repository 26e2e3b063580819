"""acquisition"""
